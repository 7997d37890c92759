// The library example of docs/library.md, run as written against the built package and the fake
// server.

import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { runProcess } from "./support/run-process.js";

const EXAMPLE = resolve(import.meta.dirname, "../examples/library.mjs");

describe("agentloop as a library", () => {
  it("runs the documented example: a task with bash and a custom tool, read through events", async () => {
    const model = await startFakeModel("anthropic");
    model.script([
      reply(toolUse("t1", "bash", { command: "cat README.md" })),
      reply(toolUse("t2", "word_count", { text: "one two three" })),
      reply(text("README.md has 3 words.")),
    ]);
    const sandbox = freshSandbox();
    writeFileSync(resolve(sandbox.workspace, "README.md"), "one two three\n");
    // Not spawnSync: the fake server lives in this process and must keep answering.
    const run = await runProcess(process.execPath, [EXAMPLE], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, ...model.env() },
    });
    await model.close();
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        'tool: bash {"command":"cat README.md"}',
        'tool: word_count {"text":"one two three"}',
        "answer (end_turn): README.md has 3 words.",
        "",
      ].join("\n"),
    );
    expect(model.statuses()).toEqual([200, 200, 200]);
  });

  it("is shown in docs/library.md exactly as it is tested", () => {
    const page = readFileSync(resolve(import.meta.dirname, "../docs/library.md"), "utf8");
    expect(page).toContain(readFileSync(EXAMPLE, "utf8").trim());
  });
});
