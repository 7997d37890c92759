// The transcript viewer shows each hook run where it ran: between the reply that asked for the
// tool call and the results, with its event, command, ending and what it said; a blocking one
// marked as a failure.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runViewCommand } from "../src/viewer/view-command.js";
import { launchChromium } from "./support/chromium.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const at = "2026-12-01T10:00:00.000Z";
const call = { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "rm notes.txt" } };
const lines = [
  {
    type: "session",
    version: 1,
    id: "s",
    cwd: "/w",
    model: "m",
    provider: "anthropic",
    startedAt: at,
  },
  { type: "message", at, message: { role: "user", content: "tidy up" } },
  { type: "message", at, turn: 1, message: { role: "assistant", content: [call] } },
  {
    type: "hook",
    at,
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
    at,
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
    at,
    turn: 2,
    message: { role: "assistant", content: [{ type: "text", text: "I left it." }] },
  },
];

it("shows a hook's run at its step, after the call it ran for", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-viewer-hooks-"));
  writeFileSync(
    join(dir, "session.jsonl"),
    `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
  );
  await runViewCommand({
    cwd: dir,
    sessionId: "session.jsonl",
    sessionsDir: dir,
    exportPath: "view.html",
    stdout: () => {},
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`file://${join(dir, "view.html")}`);
  await page.waitForSelector("body[data-ready=true]");
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
        item.classList.contains("hook") ? "hook" : (item.querySelector(".role")?.textContent ?? ""),
      ),
    );
  expect(kinds).toEqual(["user", "assistant", "hook", "tool results"]);
  expect(errors).toEqual([]);
  await page.close();
});
