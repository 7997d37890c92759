// The REPL's slash commands and its input (a paste, a continued line, history, Ctrl-C on a
// line being typed) in a real pseudo-terminal, against the fake Anthropic server.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  type FakeModel,
  freshSandbox,
  onlySession,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";

const PTY_RUN = resolve(import.meta.dirname, "support/pty-run.py");
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const UP = "\x1b[A";
const CTRL_C = "\x03";

interface Terminal {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** How much has been printed so far: pass it to `waitFor` to look only at what comes next. */
  mark(): number;
  type(keys: string): void;
  /** Waits until the screen shows `pattern` after what was already there `since`. */
  waitFor(pattern: RegExp, since?: number): Promise<void>;
  exited: Promise<number | null>;
}

function openTerminal(sandbox: Sandbox, model: FakeModel, args: string[] = []): Terminal {
  const child = spawn("python3", [PTY_RUN, process.execPath, CLI, ...args], {
    cwd: sandbox.workspace,
    env: { ...sandbox.env, ...model.env() },
  });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  return {
    child,
    output: () => screen,
    mark: () => screen.length,
    type: (keys) => child.stdin.write(keys),
    exited,
    async waitFor(pattern, since = 0) {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(screen.slice(since))) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
        await new Promise((done) => setTimeout(done, 20));
      }
    },
  };
}

/** Starts the REPL and waits for its first prompt. */
async function startRepl(sandbox: Sandbox, model: FakeModel, args: string[] = []) {
  const terminal = openTerminal(sandbox, model, args);
  await terminal.waitFor(/› /);
  return terminal;
}

/** Types a line and waits for the prompt that follows what it printed. */
async function enter(terminal: Terminal, line: string, shows: RegExp = /[\s\S]*/) {
  const mark = terminal.mark();
  terminal.type(`${line}\r`);
  await terminal.waitFor(new RegExp(`${shows.source}[\\s\\S]*› `), mark);
  return terminal.output().slice(mark);
}

async function exit(terminal: Terminal) {
  terminal.type("exit\r");
  expect(await terminal.exited).toBe(0);
}

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
    await exit(terminal);
  });

  it("/help lists every command and the keys", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    const shown = await enter(terminal, "/help", /Ctrl-C/);
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
    await exit(terminal);
  });

  it("an unknown command gets a hint and sends no request", async () => {
    model.script([reply(text("unused"))]);
    const before = model.requestCount();
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "/frobnicate now", /Unknown command \/frobnicate; \/help lists them\./);
    await exit(terminal);
    expect(model.requestCount()).toBe(before);
    expect(onlySession(sandbox).messages).toEqual([]);
  });

  it("/clear starts a new session file with an empty history", async () => {
    model.script([reply(text("Noted: teal.")), reply(text("I know nothing of colours."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "remember the colour teal", /Noted: teal\./);
    const first = onlySession(sandbox).header?.id as string;
    const shown = await enter(terminal, "/clear", /New session/);
    const files = sessionFiles(sandbox);
    expect(files).toHaveLength(2);
    const second = files.map((file) => file.replace(/\.jsonl$/, "")).find((id) => id !== first);
    expect(shown).toContain(`New session ${second}.`);
    await enter(terminal, "which colour?", /nothing of colours/);
    expect(lastRequestPrompts(model)).toEqual(["which colour?"]);
    await exit(terminal);
    expect(terminal.output()).toMatch(new RegExp(`Session saved to \\S+${second}\\.jsonl`));
  });

  it("/cost prints the session's tokens and cost", async () => {
    model.script([reply(text("Done."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "/cost", /No requests yet/);
    await enter(terminal, "do it", /Done\./);
    await enter(
      terminal,
      "/cost",
      /[\d,]+ tokens in \([\d,]+ new, [\d,]+ read from cache, [\d,]+ written to cache\) · [\d,]+ out · \$\d+\.\d{4}/,
    );
    await exit(terminal);
  });

  it("/model shows the model, and with a name the next request uses that model", async () => {
    model.script([reply(text("Sonnet here."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "/model", /Model claude-haiku-4-5 \(anthropic\)/);
    await enter(terminal, "/model claude-sonnet-4-6", /Model claude-sonnet-4-6 \(anthropic\) from/);
    await enter(terminal, "who are you?", /Sonnet here\./);
    expect(JSON.parse(model.requests().at(-1)?.body ?? "{}").model).toBe("claude-sonnet-4-6");
    await exit(terminal);
  });

  it("/sessions lists this directory's sessions, marking this one", async () => {
    model.script([reply(text("Listed."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "list my sessions later", /Listed\./);
    const id = onlySession(sandbox).header?.id as string;
    await enter(
      terminal,
      "/sessions",
      new RegExp(
        `${id}  \\S+ \\S+  claude-haiku-4-5  1 turns  list my sessions later  \\(this session\\)`,
      ),
    );
    await exit(terminal);
  });

  it("/resume goes on with another session, and the next request carries its history", async () => {
    model.script([
      reply(text("Noted: teal.")),
      reply(text("A fresh start.")),
      reply(text("You said teal.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "remember the colour teal", /Noted: teal\./);
    const first = onlySession(sandbox).header?.id as string;
    await enter(terminal, "/clear", /New session/);
    await enter(terminal, "something else", /A fresh start\./);
    await enter(terminal, "/resume no-such-session", /There is no session with id no-such-session/);
    await enter(
      terminal,
      `/resume ${first}`,
      new RegExp(`Resumed session ${first} \\(2 messages\\)`),
    );
    await enter(terminal, "which colour?", /You said teal\./);
    expect(lastRequestPrompts(model)).toEqual(["remember the colour teal", "which colour?"]);
    await exit(terminal);
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
    await enter(terminal, "/permissions", /Permission mode yolo: .*[\s\S]*built-in deny list/);
    await exit(terminal);
  });

  it("/export writes the session as one HTML file in the working directory", async () => {
    model.script([reply(text("Exported soon."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    await enter(terminal, "say something", /Exported soon\./);
    const id = onlySession(sandbox).header?.id as string;
    const file = join(sandbox.workspace, `agentloop-${id}.html`);
    await enter(terminal, "/export", /Wrote .*\.html \(1 request, 2 messages\)/);
    expect(readFileSync(file, "utf8")).toMatch(/^<!doctype html>/i);
    await enter(terminal, "/export page.html", /Wrote .*page\.html/);
    expect(existsSync(join(sandbox.workspace, "page.html"))).toBe(true);
    await exit(terminal);
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
    await enter(terminal, `${PASTE_START}line one\nline two${PASTE_END}`, /Two lines read\./);
    expect(lastRequestPrompts(model)).toEqual(["line one\nline two"]);
    // The up arrow brings the whole paste back as one prompt.
    await enter(terminal, UP, /Read again\./);
    expect(lastRequestPrompts(model)).toEqual(["line one\nline two", "line one\nline two"]);
    await exit(terminal);
  });

  it("goes on on the next line after a backslash", async () => {
    model.script([reply(text("Both parts read."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    let mark = terminal.mark();
    terminal.type("first part\\\r");
    await terminal.waitFor(/… /, mark);
    mark = terminal.mark();
    await enter(terminal, "second part", /Both parts read\./);
    expect(lastRequestPrompts(model)).toEqual(["first part\nsecond part"]);
    await exit(terminal);
  });

  it("recalls a prompt of an earlier session with the up arrow", async () => {
    model.script([reply(text("First answer.")), reply(text("Again."))]);
    const sandbox = freshSandbox();
    const first = await startRepl(sandbox, model);
    await enter(first, "a prompt worth repeating", /First answer\./);
    await exit(first);
    const history = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "history");
    expect(statSync(history).mode & 0o777).toBe(0o600);

    const second = await startRepl(sandbox, model);
    const mark = second.mark();
    second.type(UP);
    await second.waitFor(/a prompt worth repeating/, mark);
    await enter(second, "", /Again\./);
    expect(lastRequestPrompts(model)).toEqual(["a prompt worth repeating"]);
    await exit(second);
  });

  it("completes a command on Tab", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    const mark = terminal.mark();
    terminal.type("/perm\t");
    await terminal.waitFor(/\/permissions/, mark);
    await enter(terminal, "", /Permission mode ask/);
    await exit(terminal);
  });

  it("clears a line being typed on Ctrl-C, without counting it towards exiting", async () => {
    model.script([reply(text("Only the second."))]);
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox, model);
    let mark = terminal.mark();
    terminal.type("a thought I abandon");
    await terminal.waitFor(/abandon/, mark);
    terminal.type(CTRL_C);
    await new Promise((done) => setTimeout(done, 100));
    mark = terminal.mark();
    terminal.type(CTRL_C);
    await terminal.waitFor(/press Ctrl-C again to exit[\s\S]*› /, mark);
    await enter(terminal, "the prompt I mean", /Only the second\./);
    expect(lastRequestPrompts(model)).toEqual(["the prompt I mean"]);
    await exit(terminal);
  });
});
