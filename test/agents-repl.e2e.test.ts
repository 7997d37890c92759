// Subagents at the REPL, against the fake Anthropic server: /agents lists them (all of them,
// however many the agent tool's description has room for), a child's tool calls are shown
// indented under the agent call while it runs, and a child's permission question names the
// agent that asks.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogBudget } from "../src/skills/catalog.js";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { screenLines } from "./support/screen.js";
import { openRepl } from "./support/terminal.js";

const COLUMNS = 100;
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
      columns: COLUMNS,
    });
    const screen = await terminal.enter("/agents", /reviewer: Reviews\./);
    expect(screen).toMatch(/general: Any task, with this session's tools/);
    expect(screen).toMatch(/explore: Read-only search/);
    expect(screen).toContain(
      ".claude/agents/reviewer.md · tools read · 30 turns · the session's mode",
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("with 150 definitions keeps the agent tool's list within 1% of the window, naming each; /agents shows them whole", async () => {
    const sandbox = freshSandbox();
    const agents = join(sandbox.workspace, ".claude", "agents");
    mkdirSync(agents, { recursive: true });
    const names = Array.from({ length: 150 }, (_, index) => `specialist-${index}`);
    // As long as a public collection's descriptions, each ending in words of its own.
    const described = (name: string) =>
      `Expert in its field. Use PROACTIVELY. ${"Examples: a request and how to handle it. ".repeat(5)}Ends ${name}.`;
    for (const name of names) {
      writeFileSync(
        join(agents, `${name}.md`),
        `---\nname: ${name}\ndescription: ${described(name)}\n---\nWork.`,
      );
    }
    model.script([reply(text("Listed."))]);
    const before = model.requestCount();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["--context-window", "100000"],
      columns: COLUMNS,
    });
    await terminal.enter("which agents are there?", /Listed\./);
    const body = JSON.parse(model.requests()[before]?.body ?? "{}") as {
      tools: { name: string; description: string }[];
    };
    const description = body.tools.find((tool) => tool.name === "agent")?.description ?? "";
    const list = description.slice(description.indexOf("Agents (subagent_type):"));
    expect(list.length).toBeLessThanOrEqual(catalogBudget(100_000));
    for (const name of ["general", "explore", ...names]) expect(list).toContain(`- ${name}: `);
    expect(list).not.toContain("Ends specialist-0.");

    await terminal.enter("/agents", /Ends specialist-149\./);
    const lines = (await screenLines(terminal.output(), COLUMNS)).join(" ");
    for (const name of names) {
      expect(lines).toContain(`${name}: Expert in its field.`);
      expect(lines).toContain(`Ends ${name}.`);
    }
    expect(await terminal.exit()).toBe(0);
    model.script([]);
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
