// The REPL's slash commands and its input (a paste, a continued line, history, Ctrl-C on a
// line being typed) in a real pseudo-terminal, against the fake Anthropic server.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const UP = "\x1b[A";
const CTRL_C = "\x03";

/** Starts the REPL against the model in the sandbox, and waits for its first prompt. */
const startRepl = (sandbox: Sandbox, model: FakeModel, args: string[] = []) =>
  openRepl({ env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace, args });

function sessionFiles(sandbox: Sandbox): string[] {
  const directory = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
  return readdirSync(directory).filter((name) => name.endsWith(".jsonl"));
}

type Content = string | { type: string; text?: string }[];

/** The text of each user message of the latest request the fake received. */
function lastRequestPrompts(model: FakeModel): string[] {
  const body = JSON.parse(model.requests().at(-1)?.body ?? "{}");
  return body.messages
    .filter((message: { role: string }) => message.role === "user")
    .map(({ content }: { content: Content }) =>
      typeof content === "string"
        ? content
        : content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n"),
    );
}

describe("the REPL's commands", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("starts with one line naming the model, provider, mode, session and context fill", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    const id = onlySession(sandbox).header?.id ?? "";
    expect(terminal.output()).toMatch(
      new RegExp(`claude-haiku-4-5 · anthropic · ask · session ${id} · \\d+% of context`),
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("/help lists every command and the keys", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    const shown = await terminal.enter("/help", /Ctrl-C/);
    for (const name of [
      "/help",
      "/clear",
      "/compact [focus]",
      "/cost",
      "/model [name]",
      "/sessions",
      "/resume ID",
      "/permissions",
      "/export [file]",
      "/exit",
    ]) {
      expect(shown).toContain(name);
    }
    expect(await terminal.exit()).toBe(0);
  });

  it("an unknown command gets a hint and sends no request", async () => {
    model.script([reply(text("unused"))]);
    const before = model.requestCount();
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("/frobnicate now", /Unknown command \/frobnicate; \/help lists them\./);
    expect(await terminal.exit()).toBe(0);
    expect(model.requestCount()).toBe(before);
    expect(onlySession(sandbox).messages).toEqual([]);
  });

  it("/clear starts a new session file with an empty history", async () => {
    model.script([reply(text("Noted: teal.")), reply(text("I know nothing of colours."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("remember the colour teal", /Noted: teal\./);
    const first = onlySession(sandbox).header?.id as string;
    const shown = await terminal.enter("/clear", /New session/);
    const files = sessionFiles(sandbox);
    expect(files).toHaveLength(2);
    const second = files.map((file) => file.replace(/\.jsonl$/, "")).find((id) => id !== first);
    expect(shown).toContain(`New session ${second}.`);
    await terminal.enter("which colour?", /nothing of colours/);
    expect(lastRequestPrompts(model)).toEqual(["which colour?"]);
    expect(await terminal.exit()).toBe(0);
    expect(terminal.output()).toMatch(new RegExp(`Session saved to \\S+${second}\\.jsonl`));
  });

  it("/cost prints the session's tokens and cost", async () => {
    model.script([reply(text("Done."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("/cost", /No requests yet/);
    await terminal.enter("do it", /Done\./);
    await terminal.enter(
      "/cost",
      /[\d,]+ tokens in \([\d,]+ new, [\d,]+ read from cache, [\d,]+ written to cache\) · [\d,]+ out · \$\d+\.\d{4}/,
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("/model shows the model, and with a name the next request uses that model", async () => {
    model.script([reply(text("Sonnet here."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("/model", /Model claude-haiku-4-5 \(anthropic\)/);
    await terminal.enter("/model claude-sonnet-4-6", /Model claude-sonnet-4-6 \(anthropic\) from/);
    await terminal.enter("who are you?", /Sonnet here\./);
    expect(JSON.parse(model.requests().at(-1)?.body ?? "{}").model).toBe("claude-sonnet-4-6");
    expect(await terminal.exit()).toBe(0);
  });

  it("/sessions lists this directory's sessions, marking this one", async () => {
    model.script([reply(text("Listed."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("list my sessions later", /Listed\./);
    const id = onlySession(sandbox).header?.id as string;
    await terminal.enter(
      "/sessions",
      new RegExp(
        `${id}  \\S+ \\S+  claude-haiku-4-5  1 turn  list my sessions later  \\(this session\\)`,
      ),
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("/resume goes on with another session, and the next request carries its history", async () => {
    model.script([
      reply(text("Noted: teal.")),
      reply(text("A fresh start.")),
      reply(text("You said teal.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("remember the colour teal", /Noted: teal\./);
    const first = onlySession(sandbox).header?.id as string;
    await terminal.enter("/clear", /New session/);
    await terminal.enter("something else", /A fresh start\./);
    await terminal.enter("/resume no-such-session", /There is no session with id no-such-session/);
    await terminal.enter(
      `/resume ${first}`,
      new RegExp(`Resumed session ${first} \\(2 messages\\)`),
    );
    await terminal.enter("which colour?", /You said teal\./);
    expect(lastRequestPrompts(model)).toEqual(["remember the colour teal", "which colour?"]);
    expect(await terminal.exit()).toBe(0);
    expect(terminal.output()).toContain(`${first}.jsonl`);
    const resumed = readFileSync(
      join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions", `${first}.jsonl`),
      "utf8",
    );
    expect(resumed).toContain("which colour?");
  });

  it("/permissions prints the mode and the rules", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model, ["--permission-mode", "yolo"]);
    await terminal.enter("/permissions", /Permission mode yolo: .*[\s\S]*built-in deny list/);
    expect(await terminal.exit()).toBe(0);
  });

  it("/export writes the session as one HTML file in its own folder, or where it is told", async () => {
    model.script([reply(text("Exported soon."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter("say something", /Exported soon\./);
    const { path } = onlySession(sandbox);
    const id = onlySession(sandbox).header?.id as string;
    // Beside the session's file, not in the work tree where it could be committed by accident.
    const file = join(path.replace(/\.jsonl$/, ""), `agentloop-${id}.html`);
    const wrote = await terminal.enter("/export", /Wrote .*\.html \(1 request, 2 messages\)/);
    expect(wrote).toContain(`Wrote ${file} (`);
    expect(readFileSync(file, "utf8")).toMatch(/^<!doctype html>/i);
    expect(readdirSync(sandbox.workspace)).toEqual([]);
    await terminal.enter("/export page.html", /Wrote .*page\.html/);
    expect(existsSync(join(sandbox.workspace, "page.html"))).toBe(true);
    expect(await terminal.exit()).toBe(0);
  });

  it("/exit ends the session", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    terminal.type("/exit\r");
    expect(await terminal.exited).toBe(0);
    expect(terminal.output()).toMatch(/Session saved to .*\.jsonl/);
  });
});

describe("typing at the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("sends a pasted multi-line text as one prompt", async () => {
    model.script([reply(text("Two lines read.")), reply(text("Read again."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.enter(`${PASTE_START}line one\nline two${PASTE_END}`, /Two lines read\./);
    expect(lastRequestPrompts(model)).toEqual(["line one\nline two"]);
    // The up arrow brings the whole paste back as one prompt.
    await terminal.enter(UP, /Read again\./);
    expect(lastRequestPrompts(model)).toEqual(["line one\nline two", "line one\nline two"]);
    expect(await terminal.exit()).toBe(0);
  });

  it("goes on on the next line after a backslash", async () => {
    model.script([reply(text("Both parts read."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.press("first part\\\r", /… /);
    await terminal.enter("second part", /Both parts read\./);
    expect(lastRequestPrompts(model)).toEqual(["first part\nsecond part"]);
    expect(await terminal.exit()).toBe(0);
  });

  it("recalls a prompt of an earlier session with the up arrow", async () => {
    model.script([reply(text("First answer.")), reply(text("Again."))]);
    const sandbox = freshSandbox();
    const first = await startRepl(sandbox, model);
    await first.enter("a prompt worth repeating", /First answer\./);
    expect(await first.exit()).toBe(0);
    const history = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "history");
    expect(statSync(history).mode & 0o777).toBe(0o600);

    const second = await startRepl(sandbox, model);
    await second.press(UP, /a prompt worth repeating/);
    await second.enter("", /Again\./);
    expect(lastRequestPrompts(model)).toEqual(["a prompt worth repeating"]);
    expect(await second.exit()).toBe(0);
  });

  it("completes a command on Tab", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.press("/perm\t", /\/permissions/);
    await terminal.enter("", /Permission mode ask/);
    expect(await terminal.exit()).toBe(0);
  });

  it("clears a line being typed on Ctrl-C, without counting it towards exiting", async () => {
    model.script([reply(text("Only the second."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await terminal.press("a thought I abandon", /abandon/);
    terminal.type(CTRL_C);
    await new Promise((done) => setTimeout(done, 100));
    await terminal.press(CTRL_C, /press Ctrl-C again to exit[\s\S]*› /);
    await terminal.enter("the prompt I mean", /Only the second\./);
    expect(lastRequestPrompts(model)).toEqual(["the prompt I mean"]);
    expect(await terminal.exit()).toBe(0);
  });
});
