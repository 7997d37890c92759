// /goal in the REPL, in a real pseudo-terminal against the fake Anthropic server: it sets the
// goal, shows it and its checks, clears it; the goal is restated after /compact, and each check
// is shown as a line while the model works.

import { describe, expect, it } from "vitest";
import { freshSandbox, onlySession, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const GOAL = "the answer names the colour of the sky";

describe("/goal in the REPL", () => {
  it("sets, shows and clears the goal, restates it after /compact, and shows each check", async () => {
    const model = await startFakeModel("anthropic");
    const judged: string[] = [];
    const workFirstMessages: string[] = [];
    try {
      const greeting = reply(toolUse("t1", "bash", { command: "echo hello" }));
      model.script([greeting, reply(text("Hello there.")), reply(text("It is blue."))], {
        intercept: ({ firstUserText, lastUserText }) => {
          if (firstUserText.startsWith("The condition:\n<condition>")) {
            judged.push(firstUserText);
            const verdict = { met: true, impossible: false, reason: "Blue is named." };
            return reply(text(JSON.stringify(verdict)));
          }
          if (lastUserText.includes("[agentloop] The conversation")) {
            return reply(text("The user said hello."));
          }
          workFirstMessages.push(firstUserText);
          return undefined;
        },
      });
      const sandbox = freshSandbox();
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--permission-mode", "yolo"],
      });
      await terminal.enter("/goal", /No goal is set; \/goal CONDITION sets one\./);
      await terminal.enter("hello", /Hello there\./);
      await terminal.enter(`/goal ${GOAL}`, /Goal set\./);
      await terminal.enter(
        "/goal",
        /Goal: the answer names the colour of the sky[\s\S]*Checked 0 times by claude-haiku-4-5; at most 8 continuations in a row\./,
      );
      await terminal.enter("/compact", /Compacted\./);
      await terminal.enter("what colour is the sky?", /goal check 1: met: Blue is named\./);
      await terminal.enter(
        "/goal",
        /No goal is set; \/goal CONDITION sets one\.[\s\S]*The latest: goal check 1: met: Blue is named\./,
      );
      await terminal.enter("/goal the sky is green", /Goal set\./);
      await terminal.enter("/goal clear", /Goal cleared\./);
      await terminal.enter("/goal", /No goal is set/);
      await terminal.exit();

      expect(judged).toHaveLength(1);
      expect(judged[0]).toContain(GOAL);
      expect(judged[0]).toContain("It is blue.");
      // The request after /compact starts from the summary, with the goal restated beside it.
      expect(workFirstMessages.at(-1)).toContain("The user said hello.");
      expect(workFirstMessages.at(-1)).toContain(
        `[agentloop: goal] The session's goal, still to be met: ${GOAL}`,
      );
      const names = onlySession(sandbox).entries.flatMap((entry) =>
        entry.type === "part" && entry.part === "goal" ? [entry.name] : [],
      );
      // The goal set and cleared before any prompt saw it did nothing, and is not recorded.
      expect(names).toEqual(["goal_set", "goal_check", "goal_cleared"]);
    } finally {
      await model.close();
    }
  }, 60_000);

  it("does not announce at the next prompt a goal set and cleared before it", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([reply(text("Hello there."))]);
      const sandbox = freshSandbox();
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      await terminal.enter(`/goal ${GOAL}`, /Goal set\./);
      await terminal.enter("/goal clear", /Goal cleared\./);
      const answer = await terminal.enter("hello", /Hello there\./);
      expect(answer).not.toMatch(/goal set|goal cleared/);
      await terminal.exit();
      expect(model.requests().at(-1)?.body).not.toContain(GOAL);
    } finally {
      await model.close();
    }
  }, 60_000);
});
