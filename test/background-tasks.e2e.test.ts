// Background tasks (chapter s11) through the built CLI against the fake Anthropic server: bash's
// run_in_background returns at once, the next request carries the task's notice, the output
// file keeps the whole output under its cap, task_stop ends a task's whole tree, the sandbox
// holds for a task as for any command, and nothing a task started outlives agentloop.

import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { eventually, pgrep, uniqueSleep } from "./support/bash-harness.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent, validResult } from "./support/schemas.js";
import { openRepl } from "./support/terminal.js";

const YOLO = ["--permission-mode", "yolo"];
type Event = { type: string; [key: string]: unknown };
type Task = { task_id: string; status: string; exit_code: number | null; output_file: string };
type Block = { type: string; text?: string; content?: string; tool_use_id?: string };

const background = (id: string, command: string, extra: Record<string, unknown> = {}) =>
  reply(toolUse(id, "bash", { command, run_in_background: true, ...extra }));
const foreground = (id: string, command: string) => reply(toolUse(id, "bash", { command }));
/** Waits in a foreground command until a background command has touched `flag` and exited. */
const waitFor = (flag: string) => `until [ -e ${flag} ]; do sleep 0.05; done; sleep 0.5`;

describe("background tasks", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(turns: FakeTurn[], args: string[], sandbox: Sandbox = freshSandbox()) {
    model.script(turns);
    const before = model.requestCount();
    const started = performance.now();
    const result = await runCli(["--output-format", "stream-json", ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    const seconds = (performance.now() - started) / 1000;
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    const final = lines.at(-1) as Event;
    const events = lines.slice(0, -1);
    expect(final.type, result.stderr).toBe("result");
    for (const event of events) expect(validEvent(event), JSON.stringify(event)).toBe(true);
    expect(validResult(final), JSON.stringify(validResult.errors)).toBe(true);
    const requests = model.requests().slice(before);
    return { ...result, events, final, seconds, sandbox, requests };
  }

  const toolEnd = (events: Event[], id: string) =>
    events.find((event) => event.type === "tool_end" && (event.call as { id: string }).id === id) as
      | { result: { content: string; is_error?: boolean }; durationMs: number }
      | undefined;
  /** The blocks of the last message of every request of a run. */
  const lastMessages = (requests: { body: string }[]) =>
    requests.map((request) => {
      const body = JSON.parse(request.body) as { messages: { content: string | Block[] }[] };
      const content = body.messages.at(-1)?.content ?? [];
      return typeof content === "string" ? [{ type: "text", text: content }] : content;
    });
  const noticeIn = (blocks: Block[]) =>
    blocks.find((block) => block.type === "text" && block.text?.startsWith("<task_notification>"));

  it("returns at once, lets a foreground command run meanwhile, and tells the next request how the task ended", async () => {
    const { code, events, final, requests } = await run(
      [
        // The task goes on once the foreground command has seen it running.
        background(
          "b1",
          "until [ -e go.flag ]; do sleep 0.05; done; seq 1 20000; echo LAST-LINE >&2; touch finished.flag; exit 3",
        ),
        foreground(
          "f1",
          `[ -e finished.flag ] || echo task-still-running; touch go.flag; ${waitFor("finished.flag")}`,
        ),
        reply(text("Both done.")),
      ],
      [...YOLO, "build in the background"],
    );
    expect(code).toBe(0);

    const started = toolEnd(events, "b1");
    expect(started?.durationMs).toBeLessThan(1000);
    expect(started?.result.is_error).toBeFalsy();
    expect(started?.result.content).toMatch(
      /^Started background task bg_1 \(bash "until \[ -e go\.flag \]; .*"\); its output goes to \/.*\/tasks\/bg_1\.output\. You will be told when it ends; read the file to see its output; stop it with task_stop\.$/,
    );
    expect(toolEnd(events, "f1")?.result.content).toMatch(/^task-still-running\n/);
    expect(events.find((event) => event.type === "task_started")).toMatchObject({
      task: { task_id: "bg_1", status: "running", exit_code: null },
    });

    // The request after the task ended: the foreground result, then the notice.
    const [, second, third] = lastMessages(requests);
    expect(noticeIn(second ?? [])).toBeUndefined();
    expect(third?.map((block) => block.type)).toEqual(["tool_result", "text"]);
    const notice = noticeIn(third ?? [])?.text ?? "";
    const task = (final.background_tasks as Task[])[0] as Task;
    expect(notice).toContain("<task_id>bg_1</task_id>");
    expect(notice).toContain("<status>failed</status>");
    expect(notice).toContain("<exit_code>3</exit_code>");
    expect(notice).toMatch(/<output_tail>\n[\s\S]*\n19999\n20000\nLAST-LINE\n<\/output_tail>/);
    // About 2 KB of tail: the first lines are only in the file.
    expect(notice).not.toMatch(/\n1\n2\n3\n/);
    expect(notice.length).toBeLessThan(3000);
    expect(notice).toContain(`<output_file>${task.output_file}</output_file>`);
    expect(events.find((event) => event.type === "task_notification")).toMatchObject({
      task: { task_id: "bg_1", status: "failed", exit_code: 3 },
      text: notice,
    });

    // The whole output, stdout and stderr, is in the file.
    const lines = Array.from({ length: 20000 }, (_, i) => `${i + 1}`);
    expect(readFileSync(task.output_file, "utf8")).toBe(`${[...lines, "LAST-LINE"].join("\n")}\n`);
    expect(final.background_tasks).toEqual([
      { ...task, task_id: "bg_1", status: "failed", exit_code: 3 },
    ]);
  });

  it("goes on with --continue from a session file holding a task's events and notice", async () => {
    const first = await run(
      [
        background("b1", "echo resumed-output; touch r.flag"),
        foreground("f1", waitFor("r.flag")),
        reply(text("Done once.")),
      ],
      [...YOLO, "first"],
    );
    const again = await run(
      [reply(text("Done again."))],
      [...YOLO, "--continue", "again"],
      first.sandbox,
    );
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/skipped|problem|repaired/i);
    const body = JSON.parse(again.requests[0]?.body ?? "{}") as {
      messages: { content: Block[] }[];
    };
    const told = body.messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter((block) => block.type === "text")
        : [],
    );
    expect(told.some((block) => block.text?.includes("resumed-output"))).toBe(true);
  });

  it("hides in the notice a secret the task printed, as in any tool result", async () => {
    const secret = "ghp_backgroundTaskSecret1234567890";
    const sandbox = freshSandbox();
    sandbox.env.GITHUB_TOKEN = secret;
    const { requests } = await run(
      [
        background("b1", 'echo "token=$GITHUB_TOKEN"; touch s.flag'),
        foreground("f1", waitFor("s.flag")),
        reply(text("Printed.")),
      ],
      [...YOLO, "print the token"],
      sandbox,
    );
    const notice = noticeIn(lastMessages(requests)[2] ?? [])?.text ?? "";
    expect(notice).toMatch(/token=\S+/);
    expect(notice).not.toContain(secret);
  });

  it("task_stop ends a task and every process it started, also one in a session of its own", async () => {
    const [child, escaped] = [uniqueSleep(), uniqueSleep()];
    const count = `pgrep -f '${child.pattern}|${escaped.pattern}' | wc -l`;
    const { code, events, requests } = await run(
      [
        background("b1", `${child.command} & setsid ${escaped.command} & wait`),
        foreground("f1", `sleep 0.5; ${count}`),
        reply(toolUse("s1", "task_stop", { task_id: "bg_1" })),
        foreground("f2", count),
        reply(text("Stopped.")),
      ],
      [...YOLO, "start and stop"],
    );
    expect(code).toBe(0);
    // The task's shell and its two sleepers.
    expect(toolEnd(events, "f1")?.result.content).toMatch(/^3\n/);
    expect(toolEnd(events, "s1")?.result.content).toMatch(
      /^Stopped background task bg_1 \(bash "sleep .*"\): it and every process it started were ended\./,
    );
    expect(toolEnd(events, "f2")?.result.content).toMatch(/^0\n/);
    expect(events.find((event) => event.type === "task_stopped")).toMatchObject({
      task: { task_id: "bg_1", status: "killed" },
      by: "task_stop",
    });
    // The stop is told to the model too, once, with the request after it.
    const notices = lastMessages(requests).map((blocks) => noticeIn(blocks)?.text ?? "");
    expect(notices.filter(Boolean)).toHaveLength(1);
    expect(notices[3]).toContain("<status>killed</status>");
  });

  it("offers task_stop only once a task was started, and refuses an unknown or ended task", async () => {
    const { events, requests } = await run(
      [
        background("b1", "echo quick; touch quick.flag"),
        foreground("f1", waitFor("quick.flag")),
        reply(toolUse("s1", "task_stop", { task_id: "bg_1" })),
        reply(toolUse("s2", "task_stop", { task_id: "bg_9" })),
        reply(text("Done.")),
      ],
      [...YOLO, "quick task"],
    );
    const offered = requests.map((request) => {
      const body = JSON.parse(request.body) as { tools: { name: string }[] };
      return body.tools.map((tool) => tool.name).includes("task_stop");
    });
    expect(offered).toEqual([false, true, true, true, true]);
    const ended = toolEnd(events, "s1")?.result;
    expect(ended?.is_error).toBe(true);
    expect(ended?.content).toMatch(
      /^Background task bg_1 is not running: it ended \(completed\)\./,
    );
    expect(toolEnd(events, "s2")?.result.content).toBe(
      'There is no background task "bg_9". The session\'s tasks: bg_1 (completed).',
    );
  });

  it("keeps a task that prints 50 MB within the file's cap, and agentloop's memory bounded", async () => {
    const measure = `${waitFor("big.flag")}; grep VmHWM /proc/$PPID/status`;
    const print = (bytes: number, flag: string) =>
      `head -c ${bytes} /dev/zero | tr '\\0' x; echo; echo END-OF-OUTPUT; touch ${flag}`;
    const big = await run(
      [
        background("b1", print(50 * 1024 * 1024, "big.flag")),
        foreground("f1", measure),
        reply(text("Printed.")),
      ],
      [...YOLO, "print a lot"],
    );
    const small = await run(
      [
        background("b1", print(1024, "big.flag")),
        foreground("f1", measure),
        reply(text("Printed.")),
      ],
      [...YOLO, "print a little"],
    );
    const task = (big.final.background_tasks as Task[])[0] as Task;
    expect(task.status).toBe("completed");
    const size = statSync(task.output_file).size;
    expect(size).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(size).toBeGreaterThan(5 * 1024 * 1024);
    const file = readFileSync(task.output_file, "utf8");
    expect(file).toMatch(
      /^\[agentloop: the first [\d,]+ bytes of output were dropped to keep this file under 10,485,760 bytes\]\nx+\nEND-OF-OUTPUT\n$/,
    );
    const dropped = Number(/first ([\d,]+) bytes/.exec(file)?.[1]?.replace(/,/g, ""));
    expect(dropped + file.length - file.indexOf("\n") - 1).toBe(50 * 1024 * 1024 + 15);
    expect(noticeIn(lastMessages(big.requests)[2] ?? [])?.text).toContain("END-OF-OUTPUT");
    // The peak resident memory of agentloop: 50 MB more output costs it little.
    const peak = (run: typeof big) =>
      Number(/VmHWM:\s+(\d+) kB/.exec(toolEnd(run.events, "f1")?.result.content ?? "")?.[1]);
    expect(peak(small)).toBeGreaterThan(0);
    expect(peak(big) - peak(small)).toBeLessThan(30 * 1024);
  });

  it("ends a task when its timeout runs out, and says so in its notice", async () => {
    const sleeper = uniqueSleep();
    const { events, requests } = await run(
      [
        background("b1", `echo before; ${sleeper.command}`, { timeout: 1 }),
        foreground("f1", "sleep 2"),
        reply(text("It timed out.")),
      ],
      [...YOLO, "a slow one"],
    );
    const notice = noticeIn(lastMessages(requests)[2] ?? [])?.text ?? "";
    expect(notice).toContain("<status>timed_out</status>");
    expect(notice).not.toContain("<exit_code>");
    expect(notice).toMatch(
      /<summary>Background command "echo before; sleep [^"]*" timed out after 1 s; it and everything it started were killed\.<\/summary>/,
    );
    expect(notice).toContain("<output_tail>\nbefore\n</output_tail>");
    expect(events.find((event) => event.type === "task_notification")).toMatchObject({
      task: { status: "timed_out", exit_code: null },
    });
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });

  it("refuses a 17th task while 16 run, with a clear result", async () => {
    const sleeper = uniqueSleep();
    // Each its own command, or the repeated-call guard would stop the run.
    const turns = Array.from({ length: 17 }, (_, i) =>
      background(`b${i + 1}`, `${sleeper.command}; : ${i + 1}`),
    );
    const { code, events, final } = await run(
      [...turns, reply(text("Too many."))],
      [...YOLO, "start many"],
    );
    expect(code).toBe(0);
    const refused = toolEnd(events, "b17")?.result;
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toMatch(
      /^Not started: 16 background tasks are running already \(bg_1, bg_2, .*bg_16\), the most a session may have\. Stop one with task_stop/,
    );
    expect(final.background_tasks).toHaveLength(16);
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });

  it("in auto mode, runs a task in the sandbox: no writing outside the workspace, no network", async () => {
    // Outside /tmp too, which the sandbox replaces: the directory is there, and read-only.
    const outsideDirectory = mkdtempSync("/var/tmp/agentloop-outside-");
    onTestFinished(() => rmSync(outsideDirectory, { recursive: true, force: true }));
    const outside = join(outsideDirectory, "outside.txt");
    const port = new URL(model.url).port;
    const { code, final, sandbox } = await run(
      [
        background(
          "b1",
          `echo inside > made-here.txt; echo escaped > ${outside}; ` +
            `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo network=reached || echo network=blocked; touch done.flag`,
        ),
        foreground("f1", waitFor("done.flag")),
        reply(text("Tried.")),
      ],
      ["--permission-mode", "auto", "try to escape"],
    );
    expect(code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "made-here.txt"), "utf8")).toBe("inside\n");
    expect(existsSync(outside)).toBe(false);
    const task = (final.background_tasks as Task[])[0] as Task;
    const output = readFileSync(task.output_file, "utf8");
    expect(output).toMatch(/Read-only file system/);
    expect(output).toContain("network=blocked");
  });

  it("a one-shot run whose answer comes while a task runs exits promptly, ends it and lists it", async () => {
    const sleeper = uniqueSleep();
    const { code, events, final, seconds, stderr } = await run(
      [
        background("b1", `setsid ${sleeper.command} & ${sleeper.command}`),
        reply(text("Left it running.")),
      ],
      [...YOLO, "start a server"],
    );
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(8);
    expect(final.background_tasks).toMatchObject([{ task_id: "bg_1", status: "killed" }]);
    expect(stderr).toMatch(
      /agentloop: background task bg_1 \(bash "setsid sleep [^"]*"\) was still running when the run ended: it and everything it started were stopped\.\n/,
    );
    expect(events.at(-1)).toMatchObject({ type: "task_stopped", by: "session_end" });
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });
});

describe("agentloop killed with SIGKILL while background tasks run", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  for (const mode of ["yolo", "auto"]) {
    it(`leaves none of their processes running (${mode})`, async () => {
      const sleeper = uniqueSleep();
      model.script([
        background("b1", `setsid ${sleeper.command} & ${sleeper.command}`),
        // The next request never ends: agentloop is still running when it is killed.
        { kind: "stall", content: [text("Still thinking")] },
      ]);
      const sandbox = freshSandbox();
      let agent: ChildProcess | undefined;
      const finished = runCli(["--permission-mode", mode, "-p", "start a server"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        onSpawn: (child) => {
          agent = child;
        },
      });
      await eventually(() => pgrep(sleeper.pattern).length >= 2, "both sleepers run");
      agent?.kill("SIGKILL");
      expect((await finished).code).toBe(null);
      await eventually(() => pgrep(sleeper.pattern).length === 0, "the sleepers are gone");
    });
  }
});

describe("background tasks in the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("lists tasks with /tasks, shows a task that ends while the model is idle, and tells it with the next prompt", async () => {
    const sandbox = freshSandbox();
    model.script([
      background("b1", "sleep 1; echo idle-done"),
      reply(text("Started it.")),
      reply(text("It finished.")),
    ]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: YOLO,
    });
    await terminal.enter("start it", /Started it\./);
    expect(await terminal.enter("/tasks")).toMatch(
      /1 task running:\r\n {2}bg_1 \(bash "sleep 1; echo idle-done"\) is running; output in \/\S+\/bg_1\.output/,
    );
    await terminal.waitFor(
      /◆ background task bg_1 \(bash "sleep 1; echo idle-done"\) completed \(exit code 0\); the model is told with your next prompt/,
    );
    await terminal.enter("what happened?", /It finished\./);
    const body = JSON.parse(model.requests().at(-1)?.body ?? "{}") as {
      messages: { content: Block[] }[];
    };
    const last = body.messages.at(-1)?.content ?? [];
    expect(last[0]).toEqual({ type: "text", text: "what happened?" });
    expect(last[1]?.text).toMatch(/^<task_notification>\n<task_id>bg_1<\/task_id>[\s\S]*idle-done/);
    expect(await terminal.enter("/tasks")).toMatch(/0 tasks running:\r\n {2}bg_1 .* completed/);
    expect(await terminal.exit()).toBe(0);
  });

  it("shows on the progress line how many tasks are running", async () => {
    const sandbox = freshSandbox();
    const sleeper = uniqueSleep();
    model.script([
      background("b1", sleeper.command),
      foreground("f1", "sleep 1.5"),
      reply(text("Waited.")),
    ]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: YOLO,
    });
    const shown = await terminal.enter("start and wait", /Waited\./);
    expect(shown).toMatch(/running… \d+\.\d s · 1 background task running/);
    expect(await terminal.exit()).toBe(0);
    await eventually(() => pgrep(sleeper.pattern).length === 0, "the task ended with the REPL");
  });
});
