// /compact in the REPL, in a real pseudo-terminal against the fake Anthropic server: the
// history is summarised with the user's focus, the summary line shows how full the context
// is, and the next prompt goes on from the compacted history.

import { describe, expect, it } from "vitest";
import { freshSandbox, onlySession, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

describe("/compact in the REPL", () => {
  it("summarises with the given focus, then the next prompt goes on from the summary", async () => {
    const model = await startFakeModel("anthropic");
    const instructions: string[] = [];
    try {
      model.script(
        [
          reply(toolUse("t1", "bash", { command: "echo one" })),
          reply(text("Ran the first step.")),
          reply(toolUse("t2", "bash", { command: "echo two" })),
          reply(text("Ran the second step.")),
          reply(text("We were running steps; both ran.")),
        ],
        {
          intercept: ({ lastUserText }) => {
            if (!lastUserText.includes("[agentloop] The conversation")) return undefined;
            instructions.push(lastUserText);
            return reply(text("Two steps ran: one and two."));
          },
        },
      );
      const sandbox = freshSandbox();
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--permission-mode", "yolo"],
      });
      await terminal.enter("run the first step", /Ran the first step\.[\s\S]*% of context/);
      await terminal.enter("run the second step", /Ran the second step\./);
      await terminal.enter(
        "/compact the steps that ran",
        /compacted: summarised \d+ messages[\s\S]*Compacted\./,
      );
      await terminal.enter("what happened?", /We were running steps; both ran\./);
      await terminal.exit();

      expect(instructions).toHaveLength(1);
      expect(instructions[0]).toMatch(/Give most room to: the steps that ran$/);
      const last = JSON.parse(model.requests().at(-1)?.body ?? "{}");
      const firstMessage = JSON.stringify(last.messages[0]);
      expect(firstMessage).toContain("run the first step");
      expect(firstMessage).toContain("Two steps ran: one and two.");
      expect(onlySession(sandbox).entries).toContainEqual(
        expect.objectContaining({ type: "compaction", kind: "summary", trigger: "manual" }),
      );
    } finally {
      await model.close();
    }
  }, 60_000);
});
