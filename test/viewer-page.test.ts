import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openSessionWriter, SESSION_FORMAT_VERSION } from "../src/session/session-file.js";
import { runViewCommand } from "../src/viewer/view-command.js";
import { launchChromium } from "./support/chromium.js";
import {
  CLEAR_STUB,
  compactedSession,
  fileToolsSession,
  INJECTED_MARKUP,
  SUMMARY,
  SUMMARY_INSTRUCTIONS,
  syntheticSession,
  WRITTEN_LINES,
} from "./support/synthetic-session.js";

const fixture = readFileSync(new URL("./fixtures/viewer-session.jsonl", import.meta.url), "utf8");
// Written outside the tree so a test run leaves git clean; docs/viewer.png is a copy of it.
const screenshotPath = new URL("../test-output/viewer.png", import.meta.url).pathname;

let browser: Browser;
// Pages share one context (cheaper than a context each); a test that fakes the clock or the
// network gets its own.
let context: BrowserContext;
let pageErrors: string[] = [];
const pages: Page[] = [];
const viewport = { viewport: { width: 1400, height: 900 } };

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext(viewport);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
  expect(pageErrors).toEqual([]);
  pageErrors = [];
});

/** Exports `session` with `agentloop view --export` and returns the file's path. */
async function exported(session: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-viewer-page-"));
  writeFileSync(join(dir, "session.jsonl"), session);
  return exportedFrom(dir, "session.jsonl");
}

/** Exports the session file `name` of the sessions directory `dir`; returns the page's path. */
async function exportedFrom(dir: string, name: string): Promise<string> {
  await runViewCommand({
    cwd: dir,
    sessionId: name,
    sessionsDir: dir,
    exportPath: "view.html",
    stdout: () => {},
  });
  return join(dir, "view.html");
}

async function open(url: string, options: { clock?: boolean } = {}): Promise<Page> {
  const page = options.clock ? await browser.newPage(viewport) : await context.newPage();
  pages.push(page);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  if (options.clock) await page.clock.install();
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

let fixturePage: Promise<string> | undefined;
const openFixture = async (options: { clock?: boolean } = {}) => {
  fixturePage ??= exported(fixture);
  return open(`file://${await fixturePage}`, options);
};
let compactedPage: Promise<string> | undefined;
const openCompacted = async () => {
  compactedPage ??= exported(compactedSession());
  return open(`file://${await compactedPage}`);
};
let fileToolsPage: Promise<string> | undefined;
const openFileTools = async () => {
  fileToolsPage ??= exported(fileToolsSession());
  const page = await open(`file://${await fileToolsPage}`);
  await page.keyboard.press("End");
  return page;
};
const position = (page: Page) => page.locator("#position").textContent();
const sentCount = (page: Page) => page.locator("#request .json-message").count();
const openMessages = (page: Page) =>
  page
    .locator("#request .json-message")
    .evaluateAll((nodes) => nodes.map((node) => (node as HTMLDetailsElement).open));
const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

describe("the transcript viewer page", () => {
  it("starts at the first request: the prompt and first reply on the left, one message sent on the right", async () => {
    const page = await openFixture();
    expect(await position(page)).toBe("Request 1 of 3");
    expect(await texts(page, "#conversation .item .role")).toEqual([
      "user",
      "assistant",
      "tool results",
    ]);
    expect(await page.locator("#conversation .message.user .bubble").first().textContent()).toBe(
      "Which files are in this project, and what does package.json say? Also show me the README.",
    );
    expect(await texts(page, "#conversation .tool-call pre")).toEqual(["ls -la"]);
    expect(await page.locator("#request .json-message").count()).toBe(1);
    expect(await page.locator("#request .json-message").textContent()).toContain(
      '"content": "Which files are in this project, and what does package.json say? Also show me the README."',
    );
    expect(await page.locator("#request-title").textContent()).toBe(
      "messages[] sent with request 1 (1 message)",
    );
  });

  it("grows messages[] with each Step and shrinks it with each Back", async () => {
    const page = await openFixture();
    const sent = () => page.locator("#request .json-message").count();
    await page.click("#step");
    expect(await position(page)).toBe("Request 2 of 3");
    expect(await sent()).toBe(3);
    expect(await page.locator("#request .json-message.new").count()).toBe(2);
    expect(await page.locator("#request .json-message").nth(2).textContent()).toContain(
      '"tool_use_id": "toolu_01LsF9x2"',
    );
    await page.click("#step");
    expect(await sent()).toBe(5);
    expect(await page.locator("#conversation .item").last().textContent()).toBe(
      "Loop stopped (end_turn): The model finished its answer.",
    );
    expect(await page.isDisabled("#step")).toBe(true);
    await page.click("#back");
    await page.click("#back");
    expect(await position(page)).toBe("Request 1 of 3");
    expect(await sent()).toBe(1);
    expect(await page.locator("#conversation .item").count()).toBe(3);
    expect(await page.isDisabled("#back")).toBe(true);
  });

  it("keeps only the messages new in a request unfolded, and any the reader opened", async () => {
    const page = await openFixture();
    const open = () =>
      page
        .locator("#request .json-message")
        .evaluateAll((nodes) => nodes.map((node) => (node as HTMLDetailsElement).open));
    expect(await open()).toEqual([true]);
    await page.click("#step");
    expect(await open()).toEqual([false, true, true]);
    await page.click("#request .json-message[data-index='0'] > summary");
    await page.click("#step");
    expect(await open()).toEqual([true, false, false, true, true]);
    await page.click("#back");
    expect(await open()).toEqual([true, true, true]);
  });

  it("shows each result's exit code and highlights the failed one", async () => {
    const page = await openFixture();
    await page.click("#step");
    const results = page.locator("#conversation .tool-result");
    expect(await results.locator(".status").allTextContents()).toEqual([
      "ok · exit 0",
      "ok · exit 0",
      "error · exit 1",
    ]);
    const failed = page.locator("#conversation .tool-result.error");
    expect(await failed.count()).toBe(1);
    expect(await failed.getAttribute("data-tool-id")).toBe("toolu_03RdMe4q");
    expect(await failed.locator("pre").textContent()).toBe(
      "cat: README.md: No such file or directory\n[exit code 1]",
    );
  });

  it("shows each step's turn, stop reason, transition, tokens and duration", async () => {
    const page = await openFixture();
    const facts = () => texts(page, "#step-info .fact");
    expect(await facts()).toEqual([
      "turn1",
      "stop_reasontool_use",
      "tokens1,412 in · 61 out",
      "duration2.8 s",
      "transitiontool_result",
    ]);
    await page.keyboard.press("End");
    expect(await facts()).toEqual([
      "turn3",
      "stop_reasonend_turn",
      "tokens2,371 in · 188 out",
      "cache1,664 read · 0 written",
      "duration3.6 s",
      "loop stoppedend_turn: The model finished its answer.",
    ]);
  });

  it("lights up a tool call and its result together, on both sides, while hovered", async () => {
    const page = await openFixture();
    await page.click("#step");
    const lit = (side: string) => page.locator(`${side} .linked`).evaluateAll(linkedIds);
    await page.hover("#conversation .tool-call[data-tool-id=toolu_01LsF9x2]");
    expect(await lit("#conversation")).toEqual(["toolu_01LsF9x2", "toolu_01LsF9x2"]);
    // The messages holding the call and the result light up too, in case they are folded.
    expect(await lit("#request")).toEqual([
      "message with toolu_01LsF9x2",
      "toolu_01LsF9x2",
      "message with toolu_01LsF9x2",
      "toolu_01LsF9x2",
    ]);
    await page.hover("#request details[data-tool-id=toolu_01LsF9x2] >> nth=1");
    expect(await page.locator("#conversation .tool-call.linked").getAttribute("data-tool-id")).toBe(
      "toolu_01LsF9x2",
    );
    await page.hover("header");
    expect(await page.locator(".linked").count()).toBe(0);
  });

  it("keeps a clicked tool call lit until it is clicked again", async () => {
    const page = await openFixture();
    await page.click("#step");
    const call = "#conversation .tool-call[data-tool-id=toolu_03RdMe4q]";
    await page.click(call);
    await page.hover("header");
    expect(await page.locator("#conversation .linked").evaluateAll(linkedIds)).toEqual([
      "toolu_03RdMe4q",
      "toolu_03RdMe4q",
    ]);
    await page.click(call);
    await page.hover("header");
    expect(await page.locator(".linked").count()).toBe(0);
  });

  it("folds a long output until it is unfolded", async () => {
    const page = await openFixture();
    await page.click("#step");
    const result = page.locator("#conversation .tool-result[data-tool-id=toolu_02PkJs7m]");
    expect(await result.locator("summary").textContent()).toBe(
      "Show all 37 lines (675 characters)",
    );
    expect(await result.textContent()).not.toContain('"license": "MIT"');
    await result.locator("summary").click();
    expect(await result.locator("details pre").textContent()).toContain('"license": "MIT"');
    expect(await result.locator(".preview").isVisible()).toBe(false);
  });

  it("steps with the arrow keys, jumps with Home and End, and plays with space", async () => {
    const page = await openFixture();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    expect(await position(page)).toBe("Request 3 of 3");
    await page.keyboard.press("ArrowLeft");
    expect(await position(page)).toBe("Request 2 of 3");
    await page.keyboard.press("Home");
    expect(await position(page)).toBe("Request 1 of 3");
    await page.click("#step");
    await page.keyboard.press(" ");
    expect(await page.locator("#play").textContent()).toBe("⏸ Pause");
    expect(await position(page)).toBe("Request 2 of 3");
    await page.keyboard.press(" ");
    expect(await page.locator("#play").textContent()).toBe("▶ Play");
  });

  it("moves one request per arrow key on the slider and jumps where the slider is set", async () => {
    const page = await openFixture();
    await page.focus("#slider");
    await page.keyboard.press("ArrowRight");
    // The slider renders on the next animation frame.
    await expect.poll(() => position(page)).toBe("Request 2 of 3");
    expect(await page.locator("#request .json-message").count()).toBe(3);
    await page.locator("#slider").evaluate((slider: HTMLInputElement) => {
      slider.value = "3";
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await expect.poll(() => position(page)).toBe("Request 3 of 3");
  });

  it("plays through the requests and pauses at the end", async () => {
    const page = await openFixture({ clock: true });
    await page.click("#play");
    await page.clock.runFor(1_000);
    expect(await position(page)).toBe("Request 2 of 3");
    await page.clock.runFor(1_000);
    expect(await position(page)).toBe("Request 3 of 3");
    expect(await page.locator("#play").textContent()).toBe("▶ Play");
  });

  it("works from file:// with the network blocked", async () => {
    const path = await exported(fixture);
    const offline = await browser.newContext({ offline: true });
    const requested: string[] = [];
    offline.on("request", (request) => requested.push(request.url()));
    const page = await offline.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`file://${path}`);
    await page.waitForSelector("body[data-ready=true]");
    await page.click("#step");
    expect(await page.locator("#request .json-message").count()).toBe(3);
    expect(requested.filter((url) => !url.startsWith("file://"))).toEqual([]);
    await offline.close();
  });

  it("serves the same page from 127.0.0.1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-viewer-page-"));
    writeFileSync(join(dir, "s.jsonl"), fixture);
    const lines: string[] = [];
    const stop = new AbortController();
    const serving = runViewCommand({
      cwd: dir,
      sessionId: "s.jsonl",
      sessionsDir: dir,
      stdout: (line) => lines.push(line),
      signal: stop.signal,
    });
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    const url = lines[0]?.split(" at ")[1] ?? "";
    const page = await open(url);
    expect(await position(page)).toBe("Request 1 of 3");
    stop.abort();
    await serving;
  });

  it("shows what could be read of a damaged session and lists the bad lines", async () => {
    const lines = fixture.trimEnd().split("\n");
    const damaged = [
      ...lines.slice(0, 3),
      "{not json",
      ...lines.slice(3, 6),
      lines[6]?.slice(0, 40),
    ];
    const page = await open(`file://${await exported(damaged.join("\n"))}`);
    expect(await page.locator("#problems strong").textContent()).toBe(
      "2 lines of this session file could not be read; showing everything else.",
    );
    expect(await texts(page, "#problems li")).toEqual([
      "line 4: the line is not valid JSON",
      "line 8: the line is cut off (was agentloop killed while writing?)",
    ]);
    expect(await position(page)).toBe("Request 1 of 2");
    expect(await page.locator("#conversation .tool-call pre").textContent()).toBe("ls -la");
  });

  it("explains an unreadable file instead of showing a blank page", async () => {
    const page = await open(`file://${await exported("garbage\n")}`);
    expect(await page.locator("header.session p").textContent()).toBe(
      "The session header is missing, so its model and directory are unknown.",
    );
    expect(await texts(page, "#problems li")).toEqual(["line 1: the line is not valid JSON"]);
    expect(await page.locator("#request .empty").textContent()).toBe(
      "This session has no messages.",
    );
    expect(await position(page)).toBe("No requests");
    expect(await page.isDisabled("#play")).toBe(true);
    await page.keyboard.press(" ");
    expect(await page.locator("#play").textContent()).toBe("▶ Play");
  });

  it("shows content it does not recognise as raw JSON instead of breaking the replay", async () => {
    const [header, prompt] = fixture.split("\n");
    const odd = JSON.stringify({
      type: "message",
      at: "2026-11-28T09:14:06.000Z",
      turn: 1,
      stopReason: "end_turn",
      message: { role: "assistant", content: [null, { type: "hologram", shape: "hmm" }] },
    });
    const page = await open(`file://${await exported([header, prompt, odd, ""].join("\n"))}`);
    expect(await texts(page, "#conversation .unknown")).toEqual([
      "(unrecognised content) null",
      '(unrecognised content) {"type":"hologram","shape":"hmm"}',
    ]);
    expect(await texts(page, "#step-info .fact")).toContain("stop_reasonend_turn");
  });

  it("shows thinking as its own kind of step, dimmed, apart from the answer", async () => {
    const [header, prompt] = fixture.split("\n");
    const thought = JSON.stringify({
      type: "message",
      at: "2026-11-28T09:14:06.000Z",
      turn: 1,
      stopReason: "end_turn",
      message: {
        role: "assistant",
        model: "claude-sonnet-5",
        content: [
          { type: "thinking", thinking: "The user wants the file list.", signature: "EvX1" },
          { type: "redacted_thinking", data: "RedY2" },
          {
            type: "opaque",
            protocol: "responses",
            item: { type: "reasoning", id: "rs_1", encrypted_content: "gAAA" },
            thinking: "Listing files.",
          },
          { type: "text", text: "Here they are." },
        ],
      },
    });
    const page = await open(`file://${await exported([header, prompt, thought, ""].join("\n"))}`);
    expect(await texts(page, "#conversation .thinking .label")).toEqual([
      "thinking (signed)",
      "thinking (redacted by the provider)",
      "reasoning (kept as it came)",
    ]);
    const bodies = await texts(page, "#conversation .thinking .body");
    expect(bodies).toEqual([
      "The user wants the file list.",
      "(no text was sent)",
      "Listing files.",
    ]);
    const style = await page
      .locator("#conversation .thinking")
      .first()
      .evaluate((card) => getComputedStyle(card).fontStyle);
    expect(style).toBe("italic");
    expect(await texts(page, "#conversation .message.assistant .bubble")).toEqual([
      "Here they are.",
    ]);
  });

  it("keeps a 2,000-message session to a window of the latest messages, earlier ones on request", async () => {
    const page = await open(`file://${await exported(syntheticSession(2_000))}`);
    await page.keyboard.press("End");
    expect(await position(page)).toBe("Request 1000 of 1000");
    const rendered = () => page.locator("#conversation .item").count();
    expect(await rendered()).toBe(60);
    expect(await page.locator("#request .json-message").count()).toBe(60);
    const earlier = page.locator("#conversation .earlier");
    expect(await earlier.textContent()).toBe("Show 100 earlier (1,941 not shown)");
    await earlier.click();
    expect(await rendered()).toBe(160);
    expect(await page.locator("#conversation .item").first().getAttribute("data-index")).toBe(
      "1841",
    );
    await page.keyboard.press("ArrowLeft");
    expect(await page.locator("#conversation .item").last().getAttribute("data-index")).toBe(
      "1998",
    );
  });

  it("draws a boundary where old results were cleared, and sends them as stubs from there on", async () => {
    const page = await openCompacted();
    await page.click("#step");
    expect(await page.locator("#conversation .compaction").count()).toBe(0);
    await page.click("#step");
    expect(await position(page)).toBe("Request 3 of 5");
    const boundary = page.locator("#conversation .compaction");
    expect(await boundary.locator(".rule").textContent()).toBe(
      "— compacted: cleared 1 old tool result, 182,000 → 41,000 tokens —",
    );
    expect(await boundary.locator(".why").textContent()).toBe(
      "auto: before a request, to fit the 200,000-token context window",
    );
    expect(await boundary.getAttribute("class")).toContain("new");
    // The conversation keeps the result as it was; the request sent its stub.
    const result = page.locator("#conversation .tool-result[data-tool-id=toolu_1]");
    expect(await result.locator("summary").textContent()).toBe(
      "Show all 39 lines (840 characters)",
    );
    expect(await sentCount(page)).toBe(5);
    const stubbed = page.locator("#request .json-message").nth(2);
    expect(await stubbed.textContent()).toContain(JSON.stringify(CLEAR_STUB));
    expect(await stubbed.textContent()).not.toContain("src/a.ts(38,1)");
    // New in this request: the stubbed result, and the call and result of the turn before.
    expect(await openMessages(page)).toEqual([false, false, true, true, true]);
    expect(await texts(page, "#step-info .fact[data-fact=compacted]")).toEqual([
      "compactedcleared 1 old tool result, 182,000 → 41,000 tokens (auto: before a request, to fit the 200,000-token context window)",
    ]);
    await page.click("#back");
    expect(await sentCount(page)).toBe(3);
    const whole = await page.locator("#request .json-message").nth(2).textContent();
    expect(whole).toContain('"content": "src/a.ts(1,1): error');
    expect(whole).not.toContain("agentloop cleared");
    expect(await page.locator("#conversation .compaction").count()).toBe(0);
  });

  it("steps to the summary request: its instructions, the summary, its usage and what it sent", async () => {
    const page = await openCompacted();
    await page.locator("#slider").evaluate((slider: HTMLInputElement) => {
      slider.value = "4";
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await expect.poll(() => position(page)).toBe("Request 4 of 5");
    expect(await page.locator("#request-title").textContent()).toBe(
      "messages[] sent with request 4, the summary request (6 messages)",
    );
    expect(await texts(page, "#step-info .fact")).toEqual([
      "summary requestsent 5 messages of the history, then these instructions",
      "tokens9,000 in · 50 out",
      "duration5.4 s",
    ]);
    const written = page.locator("#conversation .item.by-loop");
    expect(await written.locator(".role").allTextContents()).toEqual([
      "summary request",
      "summary",
    ]);
    expect(await written.locator(".bubble").allTextContents()).toEqual([
      SUMMARY_INSTRUCTIONS,
      SUMMARY,
    ]);
    const boundary = page.locator("#conversation .compaction").last();
    expect(await boundary.locator(".rule").textContent()).toBe(
      "— summarised 5 messages, 170,000 → 12,000 tokens —",
    );
    expect(await boundary.locator(".why").textContent()).toBe(
      "too_long: the API said the request was too long · transition compact_retry",
    );
    // The history it sent, with the cleared result still a stub, then the instructions.
    expect(await sentCount(page)).toBe(6);
    const stubbed = page.locator("#request .json-message").nth(2);
    await stubbed.locator("> summary").click();
    // The body is built on "toggle", which fires after the click.
    await expect.poll(() => stubbed.textContent()).toContain(JSON.stringify(CLEAR_STUB));
    await stubbed.locator("> summary").click();
    expect(await page.locator("#request .json-message").last().textContent()).toContain(
      `"content": ${JSON.stringify(SUMMARY_INSTRUCTIONS)}`,
    );
    expect(await openMessages(page)).toEqual([false, false, false, false, false, true]);
  });

  it("sends the summarised history after a summary, and the whole one again on the way back", async () => {
    const page = await openCompacted();
    await page.keyboard.press("End");
    expect(await position(page)).toBe("Request 5 of 5");
    expect(await sentCount(page)).toBe(3);
    const head = page.locator("#request .json-message").first();
    expect(await head.textContent()).toContain("Earlier turns were replaced by this summary");
    expect(await page.locator("#request .json-message").nth(1).textContent()).toContain(
      '"command": "npm test"',
    );
    expect(await texts(page, "#step-info .fact[data-fact=compacted]")).toEqual([
      "compactedsummarised 5 messages, 170,000 → 12,000 tokens (too_long: the API said the request was too long · transition compact_retry)",
    ]);
    await page.keyboard.press("ArrowLeft");
    expect(await sentCount(page)).toBe(6);
    await page.keyboard.press("ArrowLeft");
    expect(await sentCount(page)).toBe(5);
    await page.keyboard.press("Home");
    expect(await sentCount(page)).toBe(1);
    await page.keyboard.press("End");
    expect(await sentCount(page)).toBe(3);
  });

  /** A session of one tool call, its result and an answer, as JSONL. */
  function oneCallSession(call: { id: string; name: string; input: object }, result: string) {
    const at = "2026-11-28T09:00:01.000Z";
    const header = { type: "session", version: 1, id: "s1", cwd: "/tmp/p", model: "m" };
    const turn = (number: number, message: object, stopReason?: string) => ({
      type: "message",
      at,
      turn: number,
      ...(stopReason ? { stopReason } : {}),
      message,
    });
    const lines = [
      { ...header, provider: "anthropic", startedAt: at },
      { type: "message", at, message: { role: "user", content: "go" } },
      turn(1, { role: "assistant", content: [{ type: "tool_use", ...call }] }, "tool_use"),
      turn(1, {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: call.id, content: result }],
      }),
      turn(2, { role: "assistant", content: [{ type: "text", text: "Done." }] }, "end_turn"),
    ];
    return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
  }

  /** The step fact `name` at the first step (absent) and at the last (its text). */
  async function factAtFirstAndLast(session: string, name: string) {
    const page = await open(`file://${await exported(session)}`);
    const shown = page.locator(`#step-info .fact[data-fact=${name}]`);
    await page.keyboard.press("Home");
    const first = await shown.count();
    await page.keyboard.press("End");
    return { first, last: await shown.textContent() };
  }

  it("shows the todo list as it stood at each request", async () => {
    const todos = [
      { content: "Read the code", status: "completed" },
      { content: "Write the tests", status: "in_progress" },
    ];
    const session = oneCallSession({ id: "t1", name: "todo_write", input: { todos } }, "ok");
    expect(await factAtFirstAndLast(session, "todos")).toEqual({
      first: 0,
      last: "todos✔ Read the code · ▶ Write the tests",
    });
  });

  it("shows the skills loaded as they stood at each request", async () => {
    const session = oneCallSession(
      { id: "s1", name: "skill", input: { name: "review" } },
      "Skill review, from /tmp/p/.claude/skills/review/SKILL.md.\nRead it.",
    );
    expect(await factAtFirstAndLast(session, "skills")).toEqual({
      first: 0,
      last: "skillsreview",
    });
  });

  it("shows a context_too_long stop like any other", async () => {
    const lines = compactedSession().trimEnd().split("\n").slice(0, 9);
    const stop = {
      type: "stop",
      at: "2026-11-28T11:00:30.000Z",
      reason: "context_too_long",
      detail: "The conversation does not fit the model's context window.",
    };
    const session = `${[...lines, JSON.stringify(stop)].join("\n")}\n`;
    const page = await open(`file://${await exported(session)}`);
    await page.keyboard.press("End");
    expect(await position(page)).toBe("Request 2 of 2");
    const stopped = page.locator("#step-info .fact[data-fact='loop stopped']");
    expect(await stopped.textContent()).toBe(
      "loop stoppedcontext_too_long: The conversation does not fit the model's context window.",
    );
    expect(await stopped.getAttribute("class")).toContain("failed");
    expect(await page.locator("#conversation .item").last().textContent()).toBe(
      "Loop stopped (context_too_long): The conversation does not fit the model's context window.",
    );
    expect(await page.locator("#conversation .compaction .rule").textContent()).toBe(
      "— compacted: cleared 1 old tool result, 182,000 → 41,000 tokens —",
    );
  });

  it("shows a read as its file and the lines asked for", async () => {
    const page = await openFileTools();
    const call = (id: string) => page.locator(`#conversation .tool-call[data-tool-id=${id}]`);
    expect(await call("toolu_read1").locator(".body").textContent()).toBe("src/app.tslines 10–59");
    expect(await call("toolu_read1").locator(".file-header > *").allTextContents()).toEqual([
      "src/app.ts",
      "lines 10–59",
    ]);
    expect(await call("toolu_read2").locator(".body").textContent()).toBe("README.md");
  });

  it("shows an edit as a diff, replacement after replacement, its markup as text", async () => {
    const page = await openFileTools();
    const call = page.locator("#conversation .tool-call[data-tool-id=toolu_edit1]");
    expect(await call.locator(".file-header > *").allTextContents()).toEqual([
      "src/app.ts",
      "2 edits",
    ]);
    expect(await rows(call)).toEqual([
      ["hunk", "edit 1 of 2"],
      ["del", "-export function greet(name) {"],
      ["del", "-  return 'hi ' + name;"],
      ["add", "+export function welcome(name) {"],
      ["add", "+  // says hello"],
      ["add", "+  return 'welcome ' + name;"],
      ["hunk", "edit 2 of 2 · replace all"],
      ["del", `-${INJECTED_MARKUP}`],
      ["add", "+<p>safe</p>"],
    ]);
    const colours = (kind: string) =>
      call
        .locator(`pre.diff > .${kind}`)
        .first()
        .evaluate((row) => {
          const style = getComputedStyle(row);
          return [style.color, style.backgroundColor];
        });
    const [removed, removedBackground] = await colours("del");
    const [added, addedBackground] = await colours("add");
    expect(removed).toBe("rgb(207, 34, 46)");
    expect(added).toBe("rgb(26, 127, 55)");
    for (const background of [removedBackground, addedBackground]) {
      expect(background).not.toBe("rgba(0, 0, 0, 0)");
    }
    // The model's markup is text: no element was made of it and nothing in it ran.
    expect(
      await page.locator("#conversation script, #conversation img, #conversation p").count(),
    ).toBe(0);
    expect(await page.evaluate(() => (window as { injected?: boolean }).injected)).toBeUndefined();
    // The right side still shows the exact input.
    const sent = page.locator("#request .json-message").nth(3);
    await sent.locator("> summary").click();
    await expect.poll(() => sent.textContent()).toContain(JSON.stringify(INJECTED_MARKUP));
  });

  it("colours the diff in an edit's result, its first line as the headline", async () => {
    const page = await openFileTools();
    const result = page.locator("#conversation .tool-result[data-tool-id=toolu_edit1]");
    expect(await result.locator(".status").textContent()).toBe("ok");
    // 15 lines: folded like any long result.
    expect(await rows(result.locator(".preview").locator(".."))).toHaveLength(7);
    await result.locator("summary").click();
    await result.locator("details pre.diff").waitFor();
    expect(await rows(result.locator("details"))).toEqual([
      ["headline", "Edited src/app.ts: 2 replacements, +4 -3 lines."],
      ["file", "--- src/app.ts"],
      ["file", "+++ src/app.ts"],
      ["hunk", "@@ -10,4 +10,5 @@"],
      ["ctx", " // greeting"],
      ["del", "-export function greet(name) {"],
      ["del", "-  return 'hi ' + name;"],
      ["add", "+export function welcome(name) {"],
      ["add", "+  // says hello"],
      ["add", "+  return 'welcome ' + name;"],
      ["ctx", " }"],
      ["hunk", "@@ -30,1 +31,1 @@"],
      ["del", `-${INJECTED_MARKUP}`],
      ["add", "+<p>safe</p>"],
      ["note", "\\ No newline at end of file"],
    ]);
    // A result without a diff stays plain text.
    const created = page.locator("#conversation .tool-result[data-tool-id=toolu_write1]");
    expect(await created.locator("pre").textContent()).toBe(
      "Created config/settings.json (42 lines).",
    );
    expect(await created.locator("pre.diff").count()).toBe(0);
  });

  it("shows a write as its file's lines added, folded when long", async () => {
    const page = await openFileTools();
    const call = page.locator("#conversation .tool-call[data-tool-id=toolu_write1]");
    expect(await call.locator(".file-header").textContent()).toBe("config/settings.json");
    const content = `{\n${WRITTEN_LINES.join("\n")}\n}\n`;
    expect(await call.locator("summary").textContent()).toBe(
      `Show all 42 lines (${content.length} characters)`,
    );
    // Before it is unfolded, only the preview is built.
    expect(await rows(call.locator(".folded"))).toEqual([
      ["add", "+{"],
      ...WRITTEN_LINES.slice(0, 5).map((line) => ["add", `+${line}`]),
      ["text", "…"],
    ]);
    expect(await call.textContent()).not.toContain(WRITTEN_LINES.at(-1));
    await call.locator("summary").click();
    await call.locator("details pre.diff").waitFor();
    expect(await call.locator(".preview").isVisible()).toBe(false);
    const whole = await rows(call.locator("details"));
    expect(whole).toHaveLength(42);
    expect(whole.at(-2)).toEqual(["add", `+${WRITTEN_LINES.at(-1)}`]);
    expect(whole.every(([kind]) => kind === "add")).toBe(true);
  });

  it("shows a file tool's call with a malformed input as its JSON", async () => {
    const page = await openFileTools();
    const call = page.locator("#conversation .tool-call[data-tool-id=toolu_edit2]");
    expect(await call.getAttribute("class")).toBe("card tool-call");
    expect(await call.locator(".body pre").textContent()).toBe(
      JSON.stringify({ file_path: "src/app.ts", old_string: 42, new_string: null }, null, 2),
    );
    expect(await call.locator(".diff, .file-header").count()).toBe(0);
  });

  it("saves a screenshot for the README", async () => {
    const page = await openFixture();
    await page.click("#step");
    await page.hover("#conversation .tool-call[data-tool-id=toolu_03RdMe4q]");
    mkdirSync(new URL("../test-output/", import.meta.url).pathname, { recursive: true });
    const png = await page.screenshot({ path: screenshotPath });
    expect(png.subarray(1, 4).toString()).toBe("PNG");
  });
});

/** Each line of the diffs in `scope` as [its kind, its text]. */
function rows(scope: Locator): Promise<string[][]> {
  return scope
    .locator("pre.diff > span")
    .evaluateAll((nodes) => nodes.map((node) => [node.className, node.textContent ?? ""]));
}

function linkedIds(nodes: Element[]): string[] {
  return nodes.map(
    (node) =>
      node.getAttribute("data-tool-id") ?? `message with ${node.getAttribute("data-tool-ids")}`,
  );
}

describe("images in the viewer", () => {
  it("shows an image a tool returned inline, read from beside the session file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-viewer-image-"));
    const header = {
      type: "session" as const,
      version: SESSION_FORMAT_VERSION,
      id: "with-image",
      cwd: dir,
      model: "claude-haiku-4-5",
      provider: "anthropic",
      startedAt: "2026-12-01T10:00:00.000Z",
    };
    const writer = openSessionWriter(dir, header);
    const red = { width: 40, height: 30, channels: 3 as const, background: "#cc3333" };
    const picture = await sharp({ create: red }).png().toBuffer();
    const call = {
      type: "tool_use" as const,
      id: "r1",
      name: "read",
      input: { file_path: "a.png" },
    };
    writer.recordMessage({ role: "user", content: "look at a.png" });
    writer.recordMessage({ role: "assistant", content: [call] });
    writer.recordMessage({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "r1",
          content: [
            { type: "text", text: "a.png: PNG, 40x30" },
            { type: "image", mediaType: "image/png", data: picture.toString("base64") },
          ],
        },
      ],
    });
    writer.recordMessage({ role: "assistant", content: [{ type: "text", text: "A red box." }] });
    writer.close();
    expect(readFileSync(join(dir, "with-image.jsonl"), "utf8")).not.toContain(
      picture.toString("base64"),
    );
    const page = await open(`file://${await exportedFrom(dir, "with-image.jsonl")}`);
    await page.keyboard.press("End");
    const image = page.locator("#conversation .tool-result img.result-image");
    await image.waitFor();
    const size = await image.evaluate((node) => {
      const img = node as HTMLImageElement;
      return [img.naturalWidth, img.naturalHeight];
    });
    expect(size).toEqual([40, 30]);
    const body = await page.locator("#conversation .tool-result .body").first().textContent();
    expect(body).toContain("a.png: PNG, 40x30");
  });
});

describe("hook runs in the viewer", () => {
  const hookAt = "2026-12-01T10:00:00.000Z";
  const hookCall = {
    type: "tool_use",
    id: "toolu_1",
    name: "bash",
    input: { command: "rm notes.txt" },
  };
  const hookSession = `${[
    {
      type: "session",
      version: 1,
      id: "s",
      cwd: "/w",
      model: "m",
      provider: "anthropic",
      startedAt: hookAt,
    },
    { type: "message", at: hookAt, message: { role: "user", content: "tidy up" } },
    { type: "message", at: hookAt, turn: 1, message: { role: "assistant", content: [hookCall] } },
    {
      type: "hook",
      at: hookAt,
      event: "PreToolUse",
      command: "bash ~/hooks/no-rm.sh",
      source: "user",
      exitCode: 2,
      durationMs: 40,
      decision: "block",
      reason: "rm is not allowed here",
      toolUseId: "toolu_1",
    },
    {
      type: "message",
      at: hookAt,
      turn: 1,
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: "Blocked by a PreToolUse hook: rm is not allowed here",
            is_error: true,
          },
        ],
      },
    },
    {
      type: "message",
      at: hookAt,
      turn: 2,
      message: { role: "assistant", content: [{ type: "text", text: "I left it." }] },
    },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n")}\n`;

  it("shows a hook's run at its step, after the call it ran for", async () => {
    const page = await open(`file://${await exported(hookSession)}`);
    const hook = page.locator("#conversation .item.hook");
    expect(await hook.count()).toBe(1);
    expect(await hook.getAttribute("class")).toContain("failed");
    expect(await hook.textContent()).toContain(
      "PreToolUse hook (user) $ bash ~/hooks/no-rm.sh — exit 2, 40 ms, block",
    );
    expect(await hook.locator("pre.hook-output").textContent()).toBe("rm is not allowed here");
    const kinds = await page
      .locator("#conversation .item")
      .evaluateAll((items) =>
        items.map((item) =>
          item.classList.contains("hook")
            ? "hook"
            : (item.querySelector(".role")?.textContent ?? ""),
        ),
      );
    expect(kinds).toEqual(["user", "assistant", "hook", "tool results"]);
  });
});
