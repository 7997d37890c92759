// Memory in the REPL, in a real pseudo-terminal against the fake Anthropic server: /memory says
// what is remembered and where, a compaction first proposes entries from the turns it will
// summarise (shown as "Remembered: ..."), and turns already read are not sent again at the end.

import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTRACTION_MARK } from "../src/memory/extraction.js";
import { memoryDirectory } from "../src/memory/store.js";
import { freshSandbox, onlySession, startFakeModel } from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

describe("memory in the REPL", () => {
  it("lists with /memory, extracts before /compact, and asks nothing more at exit", async () => {
    const model = await startFakeModel("anthropic");
    const extractions: string[] = [];
    try {
      model.script([reply(text("Short it is.")), reply(text("Noted.")), reply(text("Bye."))], {
        intercept: ({ lastUserText }) => {
          if (lastUserText.startsWith(EXTRACTION_MARK)) {
            extractions.push(lastUserText);
            return reply(text("REMEMBER preferences: The user wants short answers."));
          }
          if (lastUserText.includes("[agentloop] The conversation")) {
            return reply(text("The user asked for short answers."));
          }
          return undefined;
        },
      });
      const sandbox = freshSandbox();
      const settings = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
      mkdirSync(settings, { recursive: true });
      writeFileSync(join(settings, "settings.json"), JSON.stringify({ memory: true }));
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      const index = join(memoryDirectory(sandbox.workspace, sandbox.env), "MEMORY.md");

      const empty = await terminal.enter("/memory", /Nothing is remembered\./);
      expect(empty).toContain(`Memory index: ${index}`);
      await terminal.enter("Keep your answers short, please.", /Short it is\./);
      await terminal.enter("Thanks.", /Noted\./);
      await terminal.enter(
        "/compact",
        /Remembered: The user wants short answers\.[\s\S]*Compacted\./,
      );
      const listed = await terminal.enter("/memory", /preferences:/);
      expect(listed).toMatch(/\[m[0-9a-f]{6}\] The user wants short answers\. \(\d{4}-\d\d-\d\d/);
      expect(await terminal.exit()).toBe(0);
      // The session's whole id, as agentloop view and --resume take it, not its first 8 characters.
      expect(listed).toContain(`, session ${basename(onlySession(sandbox).path, ".jsonl")})`);

      // Once, before the compaction: nothing new was said after it.
      expect(extractions).toHaveLength(1);
      expect(extractions[0]).toContain("Keep your answers short, please.");
      expect(onlySession(sandbox).entries).toContainEqual(
        expect.objectContaining({ type: "part", part: "memory", name: "remembered" }),
      );
    } finally {
      await model.close();
    }
  }, 60_000);

  it("says with memory off that it is off and how to turn it on, and still lists what is kept", async () => {
    const model = await startFakeModel("anthropic");
    try {
      const sandbox = freshSandbox();
      const settings = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      const off = await terminal.enter("/memory", /Nothing is remembered\./);
      expect(off).not.toContain("Unknown command");
      expect(off).toContain(
        `Memory is off in this session: nothing is remembered or read. To turn it on, put "memory": true in ${settings}, or start agentloop with --memory.`,
      );
      expect(off).toContain(
        `Memory index: ${join(memoryDirectory(sandbox.workspace, sandbox.env), "MEMORY.md")}`,
      );
      expect(await terminal.exit()).toBe(0);
    } finally {
      await model.close();
    }
  }, 60_000);
});
