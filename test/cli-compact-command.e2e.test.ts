// /compact in the REPL, in a real pseudo-terminal against the fake Anthropic server: the
// history is summarised with the user's focus, the summary line shows how full the context
// is, and the next prompt goes on from the compacted history.

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, freshSandbox, onlySession, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

const PTY_RUN = resolve(import.meta.dirname, "support/pty-run.py");

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
      const child = spawn(
        "python3",
        [PTY_RUN, process.execPath, CLI, "--permission-mode", "yolo"],
        {
          cwd: sandbox.workspace,
          env: { ...sandbox.env, ...model.env() },
        },
      );
      let screen = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
      const exited = new Promise((done) => child.on("close", done));
      const waitFor = async (pattern: RegExp, since = 0) => {
        const deadline = Date.now() + 15_000;
        while (!pattern.test(screen.slice(since))) {
          if (Date.now() > deadline) throw new Error(`no ${pattern} on the screen:\n${screen}`);
          await new Promise((done) => setTimeout(done, 20));
        }
      };
      await waitFor(/› /);
      child.stdin.write("run the first step\r");
      await waitFor(/Ran the first step\.[\s\S]*% of context[\s\S]*› /);
      let mark = screen.length;
      child.stdin.write("run the second step\r");
      await waitFor(/Ran the second step\.[\s\S]*› /, mark);
      mark = screen.length;
      child.stdin.write("/compact the steps that ran\r");
      await waitFor(/compacted: summarised \d+ messages[\s\S]*Compacted\.[\s\S]*› /, mark);
      mark = screen.length;
      child.stdin.write("what happened?\r");
      await waitFor(/We were running steps; both ran\.[\s\S]*› /, mark);
      child.stdin.write("exit\r");
      await exited;

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
