// Subagents at the REPL, against the fake Anthropic server: /agents lists them, a child's
// tool calls are shown indented under the agent call while it runs, and a child's permission
// question names the agent that asks.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { screenLines } from "./support/screen.js";
import { openRepl } from "./support/terminal.js";

const COLUMNS = 100;
const WITH_AGENT = ["--tools", "bash,read,write,edit,agent"];
const CHOICES = /\[y\]es, \[n\]o.*you may say why: /;

describe("subagents at the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("/agents lists the built-ins and the project's definitions", async () => {
    const sandbox = freshSandbox();
    const agents = join(sandbox.workspace, ".claude", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews.\ntools: Read\n---\nReview.",
    );
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: WITH_AGENT,
      columns: COLUMNS,
    });
    const screen = await terminal.enter("/agents", /reviewer: Reviews\./);
    expect(screen).toMatch(/general: The session's tools/);
    expect(screen).toMatch(/explore: Read-only: finds things/);
    expect(screen).toContain(
      ".claude/agents/reviewer.md · tools read · 30 turns · the session's mode",
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("shows the child's calls indented under the agent call, and its question names the agent", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(toolUse("call_1", "agent", { description: "make a file", prompt: "Create made.txt." })),
      reply(toolUse("call_2", "bash", { command: "touch made.txt" })),
      reply(text("Created made.txt.")),
      reply(text("The child made it.")),
    ]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: WITH_AGENT,
      columns: COLUMNS,
    });
    await terminal.press("make the file\r", CHOICES);
    const asked = await screenLines(terminal.output(), COLUMNS);
    expect(asked).toContain("⏺ agent general: make a file");
    expect(asked).toContain("    ⏺ bash $ touch made.txt");
    expect(asked).toContain("Allow [general] bash to run touch made.txt?");
    await terminal.press("y\r", /The child made it\./);
    const lines = await screenLines(terminal.output(), COLUMNS);
    const call = lines.indexOf("⏺ agent general: make a file");
    const childCall = lines.indexOf("    ⏺ bash $ touch made.txt");
    const result = lines.findIndex((line) => line.startsWith("  ⎿ Created made.txt."));
    expect(call).toBeGreaterThan(-1);
    expect(childCall).toBeGreaterThan(call);
    expect(lines.slice(childCall + 1).some((line) => line.startsWith("      ⎿ "))).toBe(true);
    expect(result).toBeGreaterThan(childCall);
    expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(true);
    expect(await terminal.exit()).toBe(0);
    model.script([]);
  });
});
