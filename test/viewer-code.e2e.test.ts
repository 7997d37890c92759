// The viewer teaches the loop: a real session (the built CLI against the fake Anthropic server,
// with a bash round trip, a hook and a compaction) exported by the built CLI and opened in
// Chromium. Each step shows the source lines that did it; the lesson view lights the course's
// five steps as the replay moves; a session written before versions were recorded says its code
// is approximate.

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStepSources } from "../scripts/step-sources.mjs";
import type { StepSources } from "../src/core/step-sources.js";
import { launchChromium } from "./support/chromium.js";
import { freshSandbox, runCli, type Sandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { gitRepository } from "./support/git-workspace.js";

const repository = new URL("../", import.meta.url).pathname;
const fixture = readFileSync(new URL("./fixtures/viewer-session.jsonl", import.meta.url), "utf8");
const SUMMARY_REQUEST = "[agentloop] The conversation has grown too long";
/** About 20 KB of output, ending in a line that names the step. */
const noisy = (k: number) => `yes "log line of step ${k}" | head -c 20000; echo; echo END-${k}`;

let browser: Browser;
let sessionPage: string;
/** The sandbox the session was recorded in. */
let recorded: Sandbox;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  sessionPage = await recordAndExport();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

/** Runs a task through the built CLI, then exports its session with `agentloop view --export`. */
async function recordAndExport(): Promise<string> {
  const sandbox = freshSandbox();
  recorded = sandbox;
  postToolUseHook(sandbox);
  const model = await startFakeModel("anthropic");
  try {
    model.script(
      [
        reply(toolUse("toolu_1", "bash", { command: noisy(1) })),
        reply(toolUse("toolu_2", "bash", { command: noisy(2) })),
        reply(toolUse("toolu_3", "bash", { command: noisy(3) })),
        reply(text("All three steps are built.")),
      ],
      {
        intercept: ({ lastUserText }) =>
          lastUserText.includes(SUMMARY_REQUEST) ? reply(text("Steps built so far.")) : undefined,
      },
    );
    const env = { ...sandbox.env, ...model.env() };
    const args = ["--permission-mode", "yolo", "--context-window", "16000", "-p", "build it"];
    const run = await runCli([...model.flags, ...args], { env, cwd: sandbox.workspace });
    expect(run.code, run.stderr).toBe(0);
  } finally {
    await model.close();
  }
  const exported = await runCli(["view", "--export", "view.html"], {
    env: sandbox.env,
    cwd: sandbox.workspace,
  });
  expect(exported.code, exported.stderr).toBe(0);
  return join(sandbox.workspace, "view.html");
}

function postToolUseHook(sandbox: Sandbox): void {
  const directory = join(sandbox.home, ".config", "agentloop");
  mkdirSync(directory, { recursive: true });
  const hook = { type: "command", command: "echo checked" };
  const settings = { hooks: { PostToolUse: [{ matcher: "Bash", hooks: [hook] }] } };
  writeFileSync(join(directory, "settings.json"), JSON.stringify(settings));
}

async function open(path: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`file://${path}`);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/**
 * Each excerpt on the code panel: its anchor, function, file:line and the highlighted line, and
 * whether that line is the very line `file:line` of this checkout.
 */
async function excerpts(page: Page) {
  const shown = await page.locator("#code .excerpt[data-key]").evaluateAll((nodes) =>
    nodes.map((node) => ({
      key: (node as HTMLElement).dataset.key,
      functionName: node.querySelector(".function")?.textContent,
      where: node.querySelector(".file")?.textContent ?? "",
      highlighted: node.querySelector(".line.here")?.textContent,
    })),
  );
  return shown.map((excerpt) => ({
    ...excerpt,
    real: isSourceLine(excerpt.highlighted, excerpt.where),
  }));
}

/** Whether the page's highlighted line is line `file:line` of this checkout: number, then text. */
function isSourceLine(highlighted: string | null | undefined, where: string): boolean {
  const [file, line] = where.split(":") as [string, string];
  const text = readFileSync(join(repository, file), "utf8").split("\n")[Number(line) - 1];
  const shown = /^(\d+)(.*)$/.exec(highlighted ?? "");
  return text !== undefined && shown?.[1] === line && shown[2]?.trim() === text.trim();
}

describe("the viewer shows the code behind each step", () => {
  it("says the code shown is the code that wrote the session", async () => {
    const page = await open(sessionPage);
    const origin = page.locator("#code-origin");
    expect(await origin.getAttribute("class")).toBe("origin exact");
    expect(await origin.textContent()).toMatch(
      /^The code beside each step is the code that wrote this session \(agentloop 0\.1\.0, source [0-9a-f]{12}\)\.$/,
    );
    await page.close();
  });

  it("shows, for the first request, each step of the loop with its function, file and line", async () => {
    const page = await open(sessionPage);
    const shown = await excerpts(page);
    // The checkpoints part saves the workspace's state before the prompt goes in.
    expect(shown.map((excerpt) => [excerpt.key, excerpt.functionName])).toEqual([
      ["checkpoints.checkpoint", "screenPrompt"],
      ["loop.prompt", "runPrompt"],
      ["loop.send", "runOneTurn"],
      ["loop.reply", "runOneTurn"],
      ["loop.tool", "executeToolCalls"],
      ["tool.bash", "runBash"],
      ["hooks", "runOne"],
      ["loop.results", "runOneTurn"],
    ]);
    expect(shown.map((excerpt) => excerpt.where?.split(":")[0])).toEqual([
      "src/checkpoints/part.ts",
      "src/session/agent-session.ts",
      "src/loop.ts",
      "src/loop.ts",
      "src/loop.ts",
      "src/tools/bash.ts",
      "src/hooks/runner.ts",
      "src/loop.ts",
    ]);
    // The highlighted line is the very line of that file, and it is the line that acts.
    expect(shown.filter((excerpt) => !excerpt.real)).toEqual([]);
    const acting = shown.map((excerpt) => excerpt.highlighted?.replace(/^\d+\s*/, ""));
    expect(acting[1]).toBe("state.messages.push(message);");
    expect(acting[2]).toBe("const reply = yield* options.provider.stream({");
    expect(acting[3]).toBe("state.messages.push(reply.message);");
    expect(acting[4]).toBe("return toolbox.run(call, signal);");
    expect(acting[7]).toBe("state.messages.push(message);");
    // The results' beat carries the transition_reason the loop recorded.
    expect(await page.locator("#code .beat .transition").allTextContents()).toEqual([
      "transition_reason: tool_result",
    ]);
    await page.close();
  });

  it("marks with ⋮ each place an excerpt leaves lines out, and nowhere else", async () => {
    const page = await open(sessionPage);
    const numbers = await page
      .locator("#code pre.code")
      .evaluateAll((blocks) =>
        blocks.map((block) =>
          [...block.querySelectorAll(".number")].map((number) => number.textContent ?? ""),
        ),
      );
    let gaps = 0;
    for (const column of numbers) {
      for (const [index, shown] of column.entries()) {
        if (index === 0) continue;
        const before = column[index - 1] as string;
        if (shown === "⋮") {
          gaps += 1;
          // A ⋮ stands between two numbered lines that do not follow each other.
          const after = Number(column[index + 1]);
          expect(after - Number(before)).toBeGreaterThan(1);
        } else if (before !== "⋮") {
          expect(Number(shown), column.join(" ")).toBe(Number(before) + 1);
        }
      }
    }
    // The loop's excerpts hold the anchors of their neighbouring steps, which are left out.
    expect(gaps).toBeGreaterThan(0);
    await page.close();
  });

  it("explains a rewind's own records with the rewind's code, not the file tools'", async () => {
    const sandbox = freshSandbox();
    gitRepository(sandbox.workspace, { "app.py": "print('hello')\n" });
    const model = await startFakeModel("anthropic");
    try {
      model.script([
        reply(toolUse("t1", "bash", { command: "echo changed > app.py && echo made > gen.txt" })),
        reply(text("Changed.")),
      ]);
      const env = { ...sandbox.env, ...model.env() };
      const cli = (args: string[]) => runCli(args, { env, cwd: sandbox.workspace });
      expect((await cli(["--permission-mode", "yolo", "-p", "change it"])).code).toBe(0);
      expect((await cli(["rewind", "1", "--code"])).code).toBe(0);
      expect((await cli(["view", "--export", "rewound.html"])).code).toBe(0);
    } finally {
      await model.close();
    }
    const page = await open(join(sandbox.workspace, "rewound.html"));
    await page.keyboard.press("End");
    const shown = await excerpts(page);
    const rewinds = shown.filter((excerpt) => excerpt.key?.startsWith("checkpoints.rewind"));
    expect(rewinds.map((excerpt) => [excerpt.key, excerpt.functionName])).toEqual([
      ["checkpoints.rewind_checkpoint", "rewindSession"],
      ["checkpoints.rewind_saved", "rewindSession"],
      ["checkpoints.rewind_saved", "rewindSession"],
      ["checkpoints.rewind_left", "rewindSession"],
      ["checkpoints.rewind", "rewindSession"],
    ]);
    expect(shown.map((excerpt) => excerpt.key)).not.toContain("checkpoints.file_saved");
    // A key shows its lines once (the second save names them as shown above).
    const withLines = rewinds.filter((excerpt) => excerpt.highlighted !== undefined);
    expect(withLines).toHaveLength(4);
    expect(withLines.filter((excerpt) => !excerpt.real)).toEqual([]);
    await page.close();
  });

  it("shows the compaction where it happened, with the compaction's code", async () => {
    const page = await open(sessionPage);
    const keys: (string | undefined)[] = [];
    for (let request = 0; request < 8; request += 1) {
      for (const excerpt of await excerpts(page)) {
        if (excerpt.key?.startsWith("compaction.")) {
          keys.push(excerpt.key);
          expect(excerpt.where).toMatch(/^src\/compaction\/compaction\.ts:\d+$/);
          expect(excerpt.real).toBe(true);
        }
      }
      await page.keyboard.press("ArrowRight");
    }
    expect(keys.length).toBeGreaterThan(0);
    await page.close();
  });

  it("lights the five steps in order as the lesson view replays the session, messages[] growing beside them", async () => {
    const page = await open(sessionPage);
    await page.keyboard.press("l");
    expect(await page.locator("#lesson-toggle").getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator("#conversation-panel").isHidden()).toBe(true);
    const lit: (string | null)[] = [];
    const sent: number[] = [];
    for (let beat = 0; beat < 12; beat += 1) {
      lit.push(
        await page.locator("#lesson-steps li.lit").evaluateAll((nodes) => {
          return (nodes[0] as HTMLElement | undefined)?.dataset.lesson ?? null;
        }),
      );
      sent.push(await page.locator("#request .json-message").count());
      await page.keyboard.press("ArrowRight");
    }
    // The checkpoint before the prompt and the PostToolUse hook after each tool are chapters':
    // they light none of the five.
    expect(lit).toEqual([null, "1", "2", "3", "4", null, "5", "2", "3", "4", null, "5"]);
    expect(sent).toEqual([0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5]);
    await page.keyboard.press("ArrowLeft");
    expect(await page.locator("#lesson-aside").textContent()).toMatch(
      /^transition_reason: tool_result\. The loop goes on: back to step 2/,
    );
    // Leaving the lesson view returns to the request it was at.
    await page.keyboard.press("l");
    expect(await page.locator("#position").textContent()).toMatch(/^Request 2 of \d+$/);
    await page.close();
  });

  it("opens a session written before versions were recorded, and says its code is approximate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-viewer-old-"));
    writeFileSync(join(dir, "old.jsonl"), fixture);
    const exported = await runCli(["view", join(dir, "old.jsonl"), "--export", "old.html"], {
      env: freshSandbox().env,
      cwd: dir,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const page = await open(join(dir, "old.html"));
    const origin = page.locator("#code-origin");
    expect(await origin.getAttribute("class")).toBe("origin approximate");
    expect(await origin.textContent()).toMatch(
      /^This session was written before agentloop recorded which version wrote it\. The code beside each step is approximate: it is the nearest this viewer has \(agentloop 0\.1\.0, source [0-9a-f]{12}\)/,
    );
    // The nearest excerpts are still shown, each at a real line of this checkout.
    const shown = await excerpts(page);
    expect(shown.map((excerpt) => excerpt.key)).toEqual([
      "loop.prompt",
      "loop.send",
      "loop.reply",
      "loop.tool",
      "tool.bash",
      "loop.results",
    ]);
    expect(shown.filter((excerpt) => !excerpt.real)).toEqual([]);
    // Request 2 ran two calls: the same lines ran twice, and are shown once.
    await page.keyboard.press("ArrowRight");
    const toolRuns = page.locator('#code .excerpt[data-key="loop.tool"]');
    expect(await toolRuns.count()).toBe(2);
    expect(await toolRuns.locator("pre.code").count()).toBe(1);
    expect(await toolRuns.last().locator(".where").textContent()).toMatch(
      /^executeToolCalls · src\/loop\.ts:\d+ · its lines are shown above$/,
    );
    await page.close();
  });

  it("stays readable on a phone: one column, nothing wider than the screen, the controls at hand", async () => {
    const page = await open(sessionPage, { width: 390, height: 844 });
    for (const lesson of [false, true]) {
      if (lesson) await page.keyboard.press("l");
      await page.keyboard.press("ArrowRight");
      const layout = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        panels: [...document.querySelectorAll<HTMLElement>("main > .panel")]
          .filter((panel) => !panel.hidden)
          .map((panel) => Math.round(panel.getBoundingClientRect().left)),
      }));
      expect(layout.width).toBeLessThanOrEqual(390);
      expect(new Set(layout.panels).size).toBe(1);
      expect(layout.panels).toHaveLength(3);
      // Stepping moves the panels' own scroll, never the page away from the controls.
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    }
    await page.close();
  });

  it("saves screenshots of both views at 1280×800 for docs/viewer.md", async () => {
    const page = await open(sessionPage);
    await page.keyboard.press("ArrowRight");
    await page.locator("#code .beat").first().waitFor();
    const shots = new URL("../test-output/", import.meta.url).pathname;
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, "viewer-code.png") });
    await page.keyboard.press("l");
    for (let beat = 0; beat < 4; beat += 1) await page.keyboard.press("ArrowRight");
    await page.screenshot({ path: join(shots, "viewer-lesson.png") });
    for (const name of ["viewer-code.png", "viewer-lesson.png"]) {
      const { width, height } = await sharp(join(shots, name)).metadata();
      expect([width, height]).toEqual([1280, 800]);
    }
    await page.close();
  });

  it("keeps the writing build's code beside the sessions, and shows it when another build views them", async () => {
    const sessions = join(recorded.env.XDG_STATE_HOME as string, "agentloop", "sessions");
    const here = collectStepSources(repository) as StepSources;
    // The built CLI kept its step sources once, under their id.
    const kept = JSON.parse(readFileSync(join(sessions, "sources", `${here.id}.json`), "utf8"));
    expect(kept).toEqual(here);

    // Another build wrote this session: its sources differ in one line, and were kept.
    const other = structuredClone(here);
    const send = other.sources["loop.send"] as StepSources["sources"][string];
    send.lines[send.line - send.firstLine] = "  const reply = await send(messages, tools);";
    other.id = createHash("sha256")
      .update(JSON.stringify(other.sources))
      .digest("hex")
      .slice(0, 12);
    other.version = "0.0.9";
    writeFileSync(join(sessions, "sources", `${other.id}.json`), JSON.stringify(other));
    const name = readdirSync(sessions).find((file) => file.endsWith(".jsonl")) as string;
    const [header, ...rest] = readFileSync(join(sessions, name), "utf8").split("\n");
    const older = {
      ...JSON.parse(header as string),
      agentloop: { version: "0.0.9", source: other.id },
    };
    writeFileSync(join(sessions, "older.jsonl"), [JSON.stringify(older), ...rest].join("\n"));

    const view = async () => {
      const run = await runCli(["view", join(sessions, "older.jsonl"), "--export", "older.html"], {
        env: recorded.env,
        cwd: recorded.workspace,
      });
      expect(run.code, run.stderr).toBe(0);
      return open(join(recorded.workspace, "older.html"));
    };
    const page = await view();
    expect(await page.locator("#code-origin").getAttribute("class")).toBe("origin exact");
    expect(await page.locator("#code-origin").textContent()).toBe(
      `The code beside each step is the code that wrote this session (agentloop 0.0.9, source ${other.id}), kept beside the session files; this viewer is agentloop 0.1.0, source ${here.id}.`,
    );
    const acting = await page
      .locator('#code .excerpt[data-key="loop.send"] .line.here')
      .textContent();
    expect(acting?.replace(/\s+/g, " ")).toBe(
      `${send.line} const reply = await send(messages, tools);`,
    );
    await page.close();

    // Kept sources changed after the fact no longer match their id: approximate again.
    send.lines[0] = "// edited by hand";
    writeFileSync(join(sessions, "sources", `${other.id}.json`), JSON.stringify(other));
    const edited = await view();
    expect(await edited.locator("#code-origin").getAttribute("class")).toBe("origin approximate");
    expect(await edited.locator("#code-origin").textContent()).toMatch(
      /^This session was written by agentloop 0\.0\.9, source [0-9a-f]{12}\. The code beside each step is approximate/,
    );
    await edited.close();
  });
});
