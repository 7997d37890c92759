// The step anchors (`// @step KEY: sentence`) and their collector, scripts/step-sources.mjs:
// the code the viewer shows beside each step of a session, and the id a session header records.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { collectStepSources } from "../scripts/step-sources.mjs";
import { stepSources } from "../src/core/step-sources.js";

const REPO = resolve(import.meta.dirname, "..");
const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  version: string;
};

/** The loop's steps: the lesson. Each in the function a reader of s01 knows. */
const LOOP_STEPS: Record<string, { file: string; functionName: string }> = {
  "loop.prompt": { file: "src/session/agent-session.ts", functionName: "runPrompt" },
  "loop.send": { file: "src/loop.ts", functionName: "runOneTurn" },
  "loop.reply": { file: "src/loop.ts", functionName: "runOneTurn" },
  "loop.tool": { file: "src/loop.ts", functionName: "executeToolCalls" },
  "loop.results": { file: "src/loop.ts", functionName: "runOneTurn" },
  "loop.continue": { file: "src/loop.ts", functionName: "runOneTurn" },
  "loop.stop_check": { file: "src/loop.ts", functionName: "beforeStopping" },
  "loop.stop": { file: "src/loop.ts", functionName: "stop" },
};

/** Every other step, in the folder of the part that makes it. */
const CHAPTER_STEPS: Record<string, string> = {
  "session.repair": "src/transcript/",
  "compaction.clear": "src/compaction/",
  "compaction.summary": "src/compaction/",
  hooks: "src/hooks/",
  "background.task_started": "src/background/",
  "background.task_notification": "src/background/",
  "background.task_stopped": "src/background/",
  "goal.goal_set": "src/goal/",
  "goal.goal_check": "src/goal/",
  "goal.goal_unmet": "src/goal/",
  "goal.goal_cleared": "src/goal/",
  "checkpoints.checkpoint": "src/checkpoints/",
  "checkpoints.file_saved": "src/checkpoints/",
  "checkpoints.left": "src/checkpoints/",
  "checkpoints.snapshot": "src/checkpoints/",
  "checkpoints.rewind": "src/checkpoints/",
  "checkpoints.rewind_checkpoint": "src/checkpoints/",
  "checkpoints.rewind_saved": "src/checkpoints/",
  "checkpoints.rewind_left": "src/checkpoints/",
  "checkpoints.notice": "src/checkpoints/",
  "schedule.job_created": "src/schedule/",
  "schedule.job_deleted": "src/schedule/",
  "schedule.job_expired": "src/schedule/",
  "schedule.job_fired": "src/schedule/",
  "schedule.fire": "src/schedule/",
  "tasks.task_created": "src/tasks/",
  "tasks.task_updated": "src/tasks/",
  "teams.message": "src/teams/",
  "teams.read": "src/teams/",
  "teams.woken": "src/teams/",
  "teams.board": "src/teams/",
  "teams.teammate_started": "src/teams/",
  "teams.teammate_stopped": "src/teams/",
  "web.fetch": "src/web/",
  "web.search": "src/web/",
  "memory.read": "src/memory/",
  "memory.remembered": "src/memory/",
  "memory.updated": "src/memory/",
  "memory.forgotten": "src/memory/",
  "memory.proposed": "src/memory/",
  "memory.consolidated": "src/memory/",
  "memory.consolidation_failed": "src/memory/",
  "memory.extraction_failed": "src/memory/",
  "tool.bash": "src/tools/",
  "tool.read": "src/tools/",
  "tool.write": "src/tools/",
  "tool.edit": "src/tools/",
  "tool.todo_write": "src/planning/",
  "tool.exit_plan_mode": "src/planning/",
  "tool.skill": "src/skills/",
  "tool.agent": "src/agents/",
  "tool.task_stop": "src/background/",
  "tool.task_create": "src/tasks/",
  "tool.task_list": "src/tasks/",
  "tool.task_get": "src/tasks/",
  "tool.task_update": "src/tasks/",
  "tool.web_fetch": "src/web/",
  "tool.memory": "src/memory/",
  "mcp.call": "src/mcp/",
  "lsp.server_started": "src/lsp/",
  "lsp.diagnostics": "src/lsp/",
  "lsp.late_diagnostics": "src/lsp/",
  thinking: "src/providers/",
  images: "src/images/",
};

describe("the step anchors of this repository", () => {
  const table = collectStepSources(REPO);
  const sources = Object.values(table.sources);

  it("name each step of the loop in the function that performs it", () => {
    for (const [key, expected] of Object.entries(LOOP_STEPS)) {
      expect(table.sources[key], key).toMatchObject({ key, ...expected });
    }
  });

  it("name each chapter's step in that chapter's folder", () => {
    for (const [key, folder] of Object.entries(CHAPTER_STEPS)) {
      expect(table.sources[key]?.file, key).toMatch(new RegExp(`^${folder}`));
    }
    const named = new Set([...Object.keys(LOOP_STEPS), ...Object.keys(CHAPTER_STEPS)]);
    expect(Object.keys(table.sources).filter((key) => !named.has(key))).toEqual([]);
  });

  it("point each at a line of code, shown in its excerpt exactly as the file has it", () => {
    for (const source of sources) {
      const fileLines = readFileSync(join(REPO, source.file), "utf8").split("\n");
      const pointed = fileLines[source.line - 1] as string;
      expect(source.lines[source.line - source.firstLine], source.key).toBe(pointed);
      expect(pointed.trim(), source.key).not.toMatch(/^(\/\/|\/\*|\*|$)/);
      const anchor = fileLines.slice(0, source.line - 1).findLast((line) => line.includes("@step"));
      expect(anchor?.trim(), source.key).toBe(`// @step ${source.key}: ${source.note}`);
      expect(source.lines.length, source.key).toBeLessThanOrEqual(16);
    }
  });

  it("show beside the loop's steps the transition_reason each records", () => {
    const shown = (key: string) => table.sources[key]?.lines.join("\n");
    expect(shown("loop.results")).toContain('state.transitionReason = "tool_result"');
    expect(shown("loop.stop_check")).toContain('state.transitionReason = "stop_hook"');
    expect(shown("loop.continue")).toContain('state.transitionReason === "max_tokens_recovery"');
  });

  it("are sorted by key, under the package's version", () => {
    const keys = Object.keys(table.sources);
    expect(keys).toEqual([...keys].sort());
    expect(table.version).toBe(version);
  });

  it("are what the viewer gets when it runs from source", async () => {
    expect(await stepSources()).toEqual(table);
  });
});

/** A tree with package.json and the given files under it, removed after the test. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "agentloop-steps-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, "package.json"), JSON.stringify({ version: "9.8.7" }));
  mkdirSync(join(root, "src"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** A function of `body` lines, one of them (0-based `at`) an anchored call. */
function longFunction(body: number, at: number): string {
  const lines = Array.from({ length: body }, (_, index) => `  step(${index});`);
  lines.splice(at, 0, "  // @step long.step: The step.");
  return ["export function long() {", ...lines, "}", ""].join("\n");
}

describe("collecting step anchors", () => {
  it("shows a short function whole, from its first line to its last", () => {
    const root = tree({
      "src/short.ts": [
        "const before = 1;",
        "export function short(x: number) {",
        "  const y = x + before;",
        "  // @step short.add: The sum is returned.",
        "  return y;",
        "}",
        "",
      ].join("\n"),
    });
    expect(collectStepSources(root).sources["short.add"]).toEqual({
      key: "short.add",
      note: "The sum is returned.",
      file: "src/short.ts",
      line: 5,
      functionName: "short",
      firstLine: 2,
      lines: [
        "export function short(x: number) {",
        "  const y = x + before;",
        "  // @step short.add: The sum is returned.",
        "  return y;",
        "}",
      ],
    });
  });

  it("shows a long function as five lines before the step and six after, clipped to the function", () => {
    const middle = collectStepSources(tree({ "src/long.ts": longFunction(30, 15) }));
    expect(middle.sources["long.step"]).toMatchObject({ line: 18, firstLine: 13 });
    expect(middle.sources["long.step"]?.lines).toHaveLength(12);
    expect(middle.sources["long.step"]?.lines.at(-1)).toBe("  step(21);");

    const first = collectStepSources(tree({ "src/long.ts": longFunction(30, 0) }));
    expect(first.sources["long.step"]).toMatchObject({ line: 3, firstLine: 1 });
    expect(first.sources["long.step"]?.lines[0]).toBe("export function long() {");

    const last = collectStepSources(tree({ "src/long.ts": longFunction(30, 29) }));
    expect(last.sources["long.step"]?.lines.at(-1)).toBe("}");
    expect(last.sources["long.step"]?.lines).toHaveLength(7);
  });

  it("names a method by its class, and a function by the const or property it is assigned to", () => {
    const root = tree({
      "src/named.ts": [
        "export class Shop {",
        "  sell(item: string) {",
        "    // @step named.method: A method.",
        "    return item;",
        "  }",
        "}",
        "export const handle = async (x: number) => {",
        "  // @step named.const: An arrow in a const.",
        "  return x;",
        "};",
        "export const tool = {",
        "  // @step named.property: An arrow in a property, on the anchored line.",
        "  run: (input: string) => input.trim(),",
        "  list() {",
        "    // @step named.callback: A callback is shown in the function that passes it.",
        "    return [1, 2].map((n) => {",
        "      // @step named.inside: Inside the callback too.",
        "      return n * 2;",
        "    });",
        "  },",
        "};",
        "// @step named.module: Top-level code.",
        "export const answer = 42;",
        "",
      ].join("\n"),
    });
    const names = Object.fromEntries(
      Object.values(collectStepSources(root).sources).map((s) => [s.key, s.functionName]),
    );
    expect(names).toEqual({
      "named.callback": "list",
      "named.const": "handle",
      "named.inside": "list",
      "named.method": "Shop.sell",
      "named.module": "(module)",
      "named.property": "run",
    });
  });

  it("points past blank lines and comments to the next line of code", () => {
    const root = tree({
      "src/gap.ts": "// @step gap.step: The step.\n\n// why it is so\nexport const value = 1;\n",
    });
    expect(collectStepSources(root).sources["gap.step"]?.line).toBe(4);
  });

  it("leaves out the viewer page's own sources, which run in the browser", () => {
    const root = tree({ "src/viewer/page/app.ts": "// @step page.step: No.\nrun();\n" });
    expect(collectStepSources(root).sources).toEqual({});
  });

  it("refuses a key used twice, naming both places", () => {
    const anchored = "// @step same.key: The step.\nexport const a = 1;\n";
    const root = tree({ "src/a.ts": anchored, "src/b.ts": `\n\n${anchored}` });
    expect(() => collectStepSources(root)).toThrow(/src\/b\.ts:3: .*same\.key.* src\/a\.ts:1/);
  });

  it("refuses an anchor with no code after it", () => {
    const root = tree({ "src/end.ts": "export const a = 1;\n// @step end.step: Nothing.\n\n" });
    expect(() => collectStepSources(root)).toThrow(/^src\/end\.ts:2: .*no line of code/);
  });

  it("refuses a malformed anchor", () => {
    const root = tree({ "src/bad.ts": "\n// @step Bad Key: Capitals.\nexport const a = 1;\n" });
    expect(() => collectStepSources(root)).toThrow(/^src\/bad\.ts:2: a step anchor reads/);
  });

  it("gives the same id to the same tree, and a new one when an excerpt changes", () => {
    const files = { "src/short.ts": "export function f() {\n  // @step f.step: F.\n  go();\n}\n" };
    const root = tree(files);
    const first = collectStepSources(root);
    expect(first.id).toMatch(/^[0-9a-f]{12}$/);
    expect(collectStepSources(root).id).toBe(first.id);
    writeFileSync(join(root, "src/short.ts"), files["src/short.ts"].replace("go()", "stop()"));
    expect(collectStepSources(root).id).not.toBe(first.id);
    expect(first.version).toBe("9.8.7");
  });
});
