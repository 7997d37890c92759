// The task board at the REPL, in a real pseudo-terminal against the fake Anthropic server: each
// change prints its line, /board lists the board, and after /compact the next request carries
// the board restated beside the summary.

import { describe, expect, it } from "vitest";
import { freshSandbox, startFakeModel, writeUserSettings } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

describe("the task board at the REPL", () => {
  it("prints each change, lists the board with /board, and restates it after /compact", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script(
        [
          reply(
            toolUse("a", "task_create", { subject: "Write the schema", description: "" }),
            toolUse("b", "task_create", { subject: "Deploy", description: "", blocked_by: ["1"] }),
          ),
          reply(text("Two tasks on the board.")),
          reply(text("Deploy waits for the schema.")),
        ],
        {
          intercept: ({ lastUserText }) =>
            lastUserText.includes("[agentloop] The conversation")
              ? reply(text("The release was planned."))
              : undefined,
        },
      );
      const sandbox = freshSandbox();
      writeUserSettings(sandbox, { tasks: true });
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: [],
      });
      await terminal.enter(
        "plan the release",
        /Board: added #2 \[pending\] Deploy \(waits for #1\)[\s\S]*Two tasks on the board\./,
      );
      await terminal.enter(
        "/board",
        /Task board [\w-]+ \(2 tasks: 2 pending\), kept in [\s\S]*#1 \[pending\] Write the schema[\s\S]*#2 \[pending\] Deploy \(waits for #1\)/,
      );
      await terminal.enter("/compact", /Compacted\./);
      await terminal.enter("what waits?", /Deploy waits for the schema\./);
      await terminal.exit();

      const last = JSON.parse(model.requests().at(-1)?.body ?? "{}");
      const firstMessage = JSON.stringify(last.messages[0]);
      expect(firstMessage).toContain("The release was planned.");
      expect(firstMessage).toContain(
        "The task board (2 tasks: 2 pending; task_list shows it as it is now):",
      );
      expect(firstMessage).toContain("#2 [pending] Deploy (waits for #1)");
    } finally {
      await model.close();
    }
  }, 60_000);
});
