// Language servers' diagnostics after edits, through the built CLI against the fake model, with
// real servers from this package's dev dependencies: TypeScript 7's `tsc --lsp --stdio` (a
// server that answers textDocument/diagnostic when asked) and pyright (a server that publishes
// them), configured in the test's own HOME as a person configures them. A fake server
// (test/support/fake-language-server.mjs) crashes, hangs or publishes late on purpose.

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  runStreamJson,
  type Sandbox,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";

const modules = resolve(import.meta.dirname, "../node_modules");
const TSC_7 = join(modules, "typescript-7/bin/tsc");
const PYRIGHT = join(modules, "pyright/langserver.index.js");
const FAKE_SERVER = resolve(import.meta.dirname, "support/fake-language-server.mjs");
const LAUNCHER = resolve(import.meta.dirname, "support/lsp-launcher.mjs");
/** Generous for a loaded machine: a real server's first answer includes its start. */
const REAL_WAIT_MS = 30_000;

const tsc = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [TSC_7, "--lsp", "--stdio"],
  extensionToLanguage: { ".ts": "typescript" },
  diagnosticsTimeout: REAL_WAIT_MS,
  ...extra,
});

/** The misbehaving server in `mode`, waited for `waitMs` after each edit. */
const fake = (mode: string, waitMs: number) => ({
  command: process.execPath,
  args: [FAKE_SERVER, mode],
  extensionToLanguage: { ".ts": "typescript" },
  diagnosticsTimeout: waitMs,
});

function configure(sandbox: Sandbox, lspServers: Record<string, unknown>) {
  const folder = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "settings.json"), JSON.stringify({ lspServers }));
}

type Content = string | { type: string; text?: string; tool_use_id?: string; content?: unknown }[];
interface Body {
  messages: { role: string; content: Content }[];
}

/** The text of the result of call `id`, as the model was sent it. */
function resultOf(requests: { body: string }[], id: string): string {
  for (const request of requests) {
    for (const message of (JSON.parse(request.body) as Body).messages) {
      if (typeof message.content === "string") continue;
      const block = message.content.find((b) => b.type === "tool_result" && b.tool_use_id === id);
      if (!block) continue;
      const content = block.content;
      return typeof content === "string"
        ? content
        : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
    }
  }
  throw new Error(`no result for ${id}`);
}

const partEvents = (events: Record<string, unknown>[], name: string) =>
  events.filter((event) => event.type === "part" && event.part === "lsp" && event.name === name);

/** How long each tool call took, from its tool_end event. */
const toolDurations = (events: Record<string, unknown>[]) =>
  events.filter((event) => event.type === "tool_end").map((event) => event.durationMs as number);

describe("a language server's diagnostics after each edit", () => {
  let model: FakeModel;
  beforeAll(async () => {
    const { startFakeModel } = await import("./support/cli-harness.js");
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** A one-shot run in a fresh sandbox whose person configured `servers`. */
  const runWith = (servers: Record<string, unknown>, turns: FakeTurn[]) => {
    const sandbox = freshSandbox();
    configure(sandbox, servers);
    return runStreamJson(model, sandbox, turns, ["-p", "go"]);
  };

  it("a pull server (tsc 7): a new error is told, a fix leaves none, an old error is not new", async () => {
    const sandbox = freshSandbox();
    configure(sandbox, { tsc: tsc() });
    writeFileSync(join(sandbox.workspace, "tsconfig.json"), '{"compilerOptions":{"strict":true}}');
    writeFileSync(join(sandbox.workspace, "old.ts"), 'export const broken: number = "x";\n');
    const { result, events, requests } = await runStreamJson(
      model,
      sandbox,
      [
        reply(
          toolUse("w1", "write", {
            file_path: "count.ts",
            content: "export const n: number = 1;\n",
          }),
        ),
        reply(
          toolUse("e1", "edit", {
            file_path: "count.ts",
            old_string: "= 1",
            new_string: '= "one"',
          }),
        ),
        reply(
          toolUse("e2", "edit", {
            file_path: "count.ts",
            old_string: '= "one"',
            new_string: "= 2",
          }),
        ),
        reply(toolUse("r1", "read", { file_path: "old.ts" })),
        reply(
          toolUse("e3", "edit", {
            file_path: "old.ts",
            old_string: "broken",
            new_string: "stillBroken",
          }),
        ),
        reply(text("Done.")),
      ],
      ["-p", "count"],
    );
    expect(result.code).toBe(0);
    expect(resultOf(requests, "w1")).not.toMatch(/language server/);
    const broken = resultOf(requests, "e1");
    expect(broken).toMatch(/^Edited /);
    expect(broken).toContain(
      "The edit was applied. The language server (tsc) reports new errors in this file:\ncount.ts:1:14 Type 'string' is not assignable to type 'number'.",
    );
    expect(resultOf(requests, "e2")).not.toMatch(/language server|not assignable/);
    expect(resultOf(requests, "e3")).not.toMatch(/language server|not assignable/);
    // The terminal's line beside each edit: the count.
    const counts = partEvents(events, "diagnostics").map((event) => event.line);
    expect(counts).toEqual([
      "lsp tsc: 0 new errors in count.ts",
      "lsp tsc: 1 new error in count.ts",
      "lsp tsc: 0 new errors in count.ts",
      "lsp tsc: 0 new errors in old.ts",
    ]);
    expect(partEvents(events, "server_started")).toHaveLength(1);
  }, 120_000);

  it("a publishing server (pyright): a new error is told with its file, line and message; the fix leaves none", async () => {
    const sandbox = freshSandbox();
    configure(sandbox, {
      pyright: {
        command: process.execPath,
        args: [PYRIGHT, "--stdio"],
        extensionToLanguage: { ".py": "python" },
        diagnosticsTimeout: REAL_WAIT_MS,
      },
    });
    const good = "def double(x: int) -> int:\n    return x * 2\n";
    const { result, requests } = await runStreamJson(
      model,
      sandbox,
      [
        reply(toolUse("w1", "write", { file_path: "calc.py", content: good })),
        reply(
          toolUse("e1", "edit", { file_path: "calc.py", old_string: "x * 2", new_string: '"two"' }),
        ),
        reply(
          toolUse("e2", "edit", { file_path: "calc.py", old_string: '"two"', new_string: "x + x" }),
        ),
        reply(text("Done.")),
      ],
      ["-p", "calc"],
    );
    expect(result.code).toBe(0);
    expect(resultOf(requests, "e1")).toMatch(
      /The edit was applied\. The language server \(pyright\) reports new errors in this file:\ncalc\.py:2:12 Type "Literal\['two'\]" is not assignable to return type "int"/,
    );
    expect(resultOf(requests, "e2")).not.toMatch(/language server|not assignable/);
  }, 120_000);

  it('"diagnostics": false injects nothing and starts nothing', async () => {
    const { result, events, requests } = await runWith({ tsc: tsc({ diagnostics: false }) }, [
      reply(
        toolUse("w1", "write", { file_path: "a.ts", content: 'export const n: number = "x";\n' }),
      ),
      reply(text("Done.")),
    ]);
    expect(result.code).toBe(0);
    expect(resultOf(requests, "w1")).toMatch(/^Created .*a\.ts/);
    expect(resultOf(requests, "w1")).not.toMatch(/language server|not assignable/);
    expect(events.filter((event) => event.type === "part" && event.part === "lsp")).toEqual([]);
  }, 60_000);

  it("a project's servers start only once the person trusts its settings", async () => {
    const sandbox = freshSandbox();
    mkdirSync(join(sandbox.workspace, ".agentloop"));
    const project = JSON.stringify({ lspServers: { tsc: tsc() } });
    writeFileSync(join(sandbox.workspace, ".agentloop", "settings.json"), project);
    const turns = (file: string) => [
      reply(
        toolUse("w1", "write", { file_path: file, content: 'export const n: number = "x";\n' }),
      ),
      reply(text("Done.")),
    ];
    const untrusted = await runStreamJson(model, sandbox, turns("a.ts"), ["-p", "go"]);
    expect(untrusted.result.code).toBe(0);
    expect(resultOf(untrusted.requests, "w1")).not.toMatch(/language server/);
    expect(untrusted.events.filter((event) => event.part === "lsp")).toEqual([]);

    const folder = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
    mkdirSync(folder, { recursive: true });
    const allow = { allowProjectSettings: [realpathSync(sandbox.workspace)] };
    writeFileSync(join(folder, "settings.json"), JSON.stringify(allow));
    const trusted = await runStreamJson(model, sandbox, turns("b.ts"), ["-p", "go"]);
    expect(trusted.result.code).toBe(0);
    expect(resultOf(trusted.requests, "w1")).toContain(
      "b.ts:1:14 Type 'string' is not assignable to type 'number'.",
    );
  }, 120_000);

  it("a server configured without the files it serves is one sentence and exit 2", async () => {
    const sandbox = freshSandbox();
    configure(sandbox, { half: { command: "some-server" } });
    const run = await runCli(["-p", "go"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(
      /^agentloop: The language server "half" in \S+settings\.json needs "extensionToLanguage", like \{"\.ts": "typescript"\}; fix or remove it\.$/,
    );
  }, 60_000);

  it("a server that never answers costs each edit at most its bound, and injects nothing", async () => {
    const { result, events, requests } = await runWith({ stuck: fake("hang", 1000) }, [
      reply(toolUse("w1", "write", { file_path: "a.ts", content: "export const n = 1;\n" })),
      reply(toolUse("w2", "write", { file_path: "a.ts", content: "export const n = 2;\n" })),
      reply(text("Done.")),
    ]);
    expect(result.code).toBe(0);
    for (const id of ["w1", "w2"]) expect(resultOf(requests, id)).not.toMatch(/language server/);
    expect(toolDurations(events)).toHaveLength(2);
    // The bound, and a little for the write itself on a loaded machine.
    for (const ms of toolDurations(events)) expect(ms).toBeLessThan(2500);
    expect(partEvents(events, "diagnostics").map((event) => event.line)).toEqual([
      "lsp stuck: no diagnostics within 1000 ms",
      "lsp stuck: no diagnostics within 1000 ms",
    ]);
  }, 60_000);

  it("a server started through a launcher leaves no process behind when the session ends", async () => {
    const sandbox = freshSandbox();
    const pidFile = join(sandbox.home, "server.pid");
    const launched = { ...fake("hang", 1000), args: [LAUNCHER, "hang"] };
    configure(sandbox, { launched: { ...launched, env: { FAKE_LSP_PID_FILE: pidFile } } });
    const { result } = await runStreamJson(
      model,
      sandbox,
      [
        reply(toolUse("w1", "write", { file_path: "a.ts", content: "export const n = 1;\n" })),
        reply(text("Done.")),
      ],
      ["-p", "a"],
    );
    expect(result.code).toBe(0);
    const server = Number(readFileSync(pidFile, "utf8"));
    expect(server).toBeGreaterThan(0);
    await expect.poll(() => isRunning(server), { timeout: 5_000 }).toBe(false);
  }, 60_000);

  it("a server that crashes is said once, started again twice, then left; the edits get nothing", async () => {
    const sandbox = freshSandbox();
    configure(sandbox, { crashy: fake("crash", 1000) });
    const writes = ["w1", "w2", "w3", "w4", "w5"];
    const { result, events, requests } = await runStreamJson(
      model,
      sandbox,
      [
        ...writes.map((id) =>
          reply(
            toolUse(id, "write", { file_path: "a.ts", content: `export const id = "${id}";\n` }),
          ),
        ),
        reply(text("Done.")),
      ],
      ["-p", "a"],
    );
    expect(result.code).toBe(0);
    for (const id of writes) expect(resultOf(requests, id)).not.toMatch(/language server/);
    expect(partEvents(events, "server_started")).toHaveLength(3);
    expect(partEvents(events, "server_stopped").map((event) => event.line)).toEqual([
      "the language server crashy stopped (it exited with code 3); it starts again at the next edit",
      "the language server crashy stopped again (it exited with code 3); it is not started again",
    ]);
    for (const ms of toolDurations(events)) expect(ms).toBeLessThan(2500);
  }, 60_000);

  it("diagnostics that come after the bound are told before the next request, once", async () => {
    const { result, events, requests } = await runWith({ slow: fake("late", 300) }, [
      reply(toolUse("w1", "write", { file_path: "a.ts", content: "export const n = 1;\n" })),
      reply(toolUse("b1", "bash", { command: "sleep 4" })),
      reply(text("Done.")),
    ]);
    expect(result.code).toBe(0);
    expect(resultOf(requests, "w1")).not.toMatch(/language server/);
    // The request after the sleep carries the late problem, beside bash's result.
    const last = JSON.parse(requests.at(-1)?.body ?? "{}") as Body;
    const told = JSON.stringify(last.messages.at(-1));
    expect(told).toContain("After the edit of a.ts was applied, its diagnostics came late.");
    expect(told).toContain("a.ts:1:1 late problem in version 1");
    expect(partEvents(events, "late_diagnostics")).toHaveLength(1);
  }, 60_000);

  it("two worktrees each get their own server and only their own diagnostics", async () => {
    const sandbox = freshSandbox();
    configure(sandbox, { tsc: tsc() });
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: sandbox.workspace,
        env: {
          ...sandbox.env,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      });
    writeFileSync(join(sandbox.workspace, "tsconfig.json"), '{"compilerOptions":{"strict":true}}');
    writeFileSync(join(sandbox.workspace, "lib.ts"), "export const value: number = 1;\n");
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "start");
    git("worktree", "add", "-q", "other");
    // The other checkout's lib exports a string: only its own server can know that.
    writeFileSync(join(sandbox.workspace, "other/lib.ts"), 'export const value: string = "1";\n');
    const use = 'import { value } from "./lib";\nexport const doubled: number = value;\n';
    const { result, events, requests } = await runStreamJson(
      model,
      sandbox,
      [
        reply(toolUse("m1", "write", { file_path: "use.ts", content: use })),
        reply(toolUse("o1", "write", { file_path: "other/use.ts", content: use })),
        reply(text("Done.")),
      ],
      ["-p", "use"],
    );
    expect(result.code).toBe(0);
    expect(resultOf(requests, "m1")).not.toMatch(/language server/);
    expect(resultOf(requests, "o1")).toContain(
      "other/use.ts:2:14 Type 'string' is not assignable to type 'number'.",
    );
    const roots = partEvents(events, "server_started").map(
      (event) => (event.data as { root: string }).root,
    );
    expect(roots).toEqual([sandbox.workspace, join(sandbox.workspace, "other")]);
  }, 120_000);
});

/** Whether process `pid` still runs (a zombie waiting to be reaped counts as ended). */
function isRunning(pid: number): boolean {
  try {
    const state = /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}
