// The viewer shows a subagent's run folded under the agent call that ran it: a session made by
// the built CLI against the fake model, exported with `agentloop view --export` and opened in
// Chromium.

import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runViewCommand } from "../src/viewer/view-command.js";
import { launchChromium } from "./support/chromium.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

let browser: Browser;
let model: FakeModel;
beforeAll(async () => {
  [browser, model] = await Promise.all([launchChromium(), startFakeModel("anthropic")]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), model?.close()]);
});

describe("a subagent's run in the viewer", () => {
  it("is folded under the agent call's result, and opened shows the child's messages in order", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(
        toolUse("call_v1", "agent", { description: "count files", prompt: "Count the files." }),
      ),
      reply(toolUse("call_v2", "bash", { command: "ls | wc -l" })),
      reply(text("There are 0 files.")),
      reply(text("None.")),
    ]);
    const run = await runCli(["how many files?"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const session = onlySession(sandbox);
    const exportPath = join(sandbox.workspace, "view.html");
    await runViewCommand({
      cwd: sandbox.workspace,
      sessionId: session.path,
      sessionsDir: dirname(session.path),
      exportPath,
      stdout: () => {},
    });

    const page: Page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`file://${exportPath}`);
    await page.waitForSelector("body[data-ready=true]");
    await page.keyboard.press("End");
    const fold = page.locator("details.subagent");
    await fold.waitFor();
    expect(await fold.locator("summary").textContent()).toMatch(
      /^agent general [0-9a-f]{4}: 4 messages, stopped: end_turn$/,
    );
    expect(await fold.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    await fold.locator("summary").click();
    const child = fold.locator(".subagent-run");
    // The body is built on the "toggle" event, which the browser fires after the click.
    await child.locator(".item").first().waitFor();
    expect(await child.locator(".item .role").allTextContents()).toEqual([
      "user",
      "assistant",
      "tool results",
      "assistant",
    ]);
    expect(await child.locator(".bubble").first().textContent()).toBe("Count the files.");
    expect(await child.locator(".tool-call pre").allTextContents()).toEqual(["ls | wc -l"]);
    expect(await child.locator(".bubble").last().textContent()).toBe("There are 0 files.");
    expect(errors).toEqual([]);
    await page.close();
  });
});
