// A team at the REPL, in a real pseudo-terminal against the fake Anthropic server: the lead
// starts alice and ends its turn; alice's message and final answer wake the idle lead through
// the seam's voice (no line typed); /team lists her, idle, with what she cost.

import { describe, expect, it } from "vitest";
import { freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

describe("a team at the REPL", () => {
  it("wakes the idle lead with its teammate's messages, and lists the team with /team", async () => {
    const model = await startFakeModel("anthropic");
    try {
      let lead = 0;
      model.script([], {
        intercept({ firstUserText, lastUserText }) {
          if (firstUserText.startsWith("ALICE")) {
            return lastUserText === firstUserText
              ? reply(toolUse("tell", "send_message", { to: "lead", text: "Halfway there." }))
              : reply(text("Alice done."));
          }
          lead += 1;
          if (lead === 1) {
            const start = { description: "the check", prompt: "ALICE: check it." };
            return reply(
              toolUse("a", "agent", { ...start, name: "alice", run_in_background: true }),
            );
          }
          if (lead === 2) return reply(text("Alice is working."));
          return reply(text(lastUserText.includes("Alice done.") ? "Alice finished." : "Noted."));
        },
      });
      const sandbox = freshSandbox();
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--teams"],
      });
      const shown = await terminal.enter("start alice", /Alice finished\./);
      expect(shown).toContain("teammate alice started");
      expect(shown).toContain("alice → lead: Halfway there.");
      await terminal.enter(
        "/team",
        /alice \(general\) · idle · 2 turns, [\d,]+ tokens, \$\d+\.\d{3}/,
      );
      expect(await terminal.exit()).toBe(0);
    } finally {
      await model.close();
    }
  }, 60_000);
});
