// Plan mode (issue 33, item 4) through the built CLI against the fake Anthropic server: what
// plan mode refuses and what it lets through (the plan file), the headless run that ends with
// the plan as its answer, the person approving or rejecting the plan in a pseudo-terminal, /plan
// in the REPL, and the mode kept across --continue and a compaction.

import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl, openTerminal } from "./support/terminal.js";

const PLAN_MODE = ["--permission-mode", "plan"];
const PLAN = "# Plan\n\n1. Change notes.txt to say two.\n2. Run the tests.\n";
/** The note plan mode starts with names the plan file: `...but your plan, /path/plan.md, which...`. */
const PLAN_FILE_IN_NOTE = /change no file but your plan, (\/\S+\/plan\.md), which/;
/** The line the plan's approval is typed on. */
const APPROVAL =
  /\[y\]es, go on in ask mode; \[a\]uto, go on in auto mode; or say what to change: /;

/** The tools plan mode offers with the default set: todo_write and exit_plan_mode added. */
const PLAN_TOOLS = [
  "agent",
  "bash",
  "edit",
  "exit_plan_mode",
  "read",
  "todo_write",
  "web_fetch",
  "web_search",
  "write",
];

/** At the REPL, where queued prompts run, the scheduled prompts' tools are offered too. */
const CRON_TOOLS = ["cron_create", "cron_delete", "cron_list"];
const sorted = (names: string[]) => [...names].sort();

type Event = { type: string; [key: string]: unknown };

/**
 * Script options that answer request number `at` (1-based) with a write of PLAN to the plan file
 * the model was told of, as a model that read its note would; the script answers the others.
 */
function writesPlanAt(at: number) {
  let file: string | undefined;
  let requests = 0;
  return {
    file: () => file,
    intercept: ({ lastUserText }: { lastUserText: string }): FakeTurn | undefined => {
      requests += 1;
      file ??= PLAN_FILE_IN_NOTE.exec(lastUserText)?.[1];
      if (requests !== at) return undefined;
      if (!file) throw new Error("the model was not told where the plan file is");
      return reply(toolUse("toolu_plan", "write", { file_path: file, content: PLAN }));
    },
  };
}

const exitPlanMode = (id: string) => reply(toolUse(id, "exit_plan_mode", {}));

/** Every file of the workspace with its content, to show that nothing changed. */
function snapshot(root: string, directory = root): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) Object.assign(files, snapshot(root, path));
    else files[relative(root, path)] = readFileSync(path, "utf8");
  }
  return files;
}

function withNotes(sandbox: Sandbox): Sandbox {
  writeFileSync(join(sandbox.workspace, "notes.txt"), "one\n");
  return sandbox;
}

/** The permission modes the session file recorded, in order. */
const recordedModes = (sandbox: Sandbox) =>
  onlySession(sandbox).entries.flatMap((entry) =>
    entry.type === "permission_mode" ? [entry.mode] : [],
  );

const sentTools = (model: FakeModel) =>
  (JSON.parse(model.requests().at(-1)?.body ?? "{}") as { tools: { name: string }[] }).tools
    .map((tool) => tool.name)
    .sort();

describe("plan mode, headless", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const run = (sandbox: Sandbox, args: string[]) =>
    runCli(args, { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace });

  it("refuses a write outside the plan file, lets no bash command write, and writes the plan file", async () => {
    const sandbox = withNotes(freshSandbox());
    const plan = writesPlanAt(3);
    model.script(
      [
        reply(toolUse("toolu_w", "write", { file_path: "notes.txt", content: "two\n" })),
        reply(toolUse("toolu_b", "bash", { command: "echo two > notes.txt; touch made.txt" })),
        exitPlanMode("toolu_x"),
      ],
      plan,
    );
    const result = await run(sandbox, [...PLAN_MODE, "--output-format", "stream-json", "plan it"]);
    model.script([]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    const results = events.flatMap((event) =>
      event.type === "tool_end" ? [event.result as ToolResultBlock] : [],
    );
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_w", is_error: true });
    expect(results[0]?.content).toContain(
      `Permission denied: plan mode changes no file but the plan file, ${plan.file()}`,
    );
    // The command ran, in the read-only sandbox, where nothing can be written.
    expect(results[1]).toMatchObject({ tool_use_id: "toolu_b", is_error: true });
    expect(results[1]?.content).toContain("Read-only file system");
    expect(results[2]).toMatchObject({ tool_use_id: "toolu_plan", is_error: false });
    expect(readFileSync(plan.file() as string, "utf8")).toBe(PLAN);
    expect(snapshot(sandbox.workspace)).toEqual({ "notes.txt": "one\n" });
    // The plan file is the session's, in the session's own directory.
    expect(plan.file()).toBe(onlySession(sandbox).path.replace(/\.jsonl$/, "/plan.md"));
  });

  it("prints the plan as the answer, exits 0 and leaves the workspace unchanged", async () => {
    const sandbox = withNotes(freshSandbox());
    const files = snapshot(sandbox.workspace);
    const before = model.requestCount();
    model.script(
      [reply(toolUse("toolu_r", "read", { file_path: "notes.txt" })), exitPlanMode("toolu_x")],
      writesPlanAt(2),
    );
    const result = await run(sandbox, ["-p", ...PLAN_MODE, "change notes.txt to say two"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(PLAN);
    expect(snapshot(sandbox.workspace)).toEqual(files);
    // The run ended with the plan: no request after exit_plan_mode.
    const requests = model.requests().slice(before);
    expect(requests).toHaveLength(3);
    const sent = requests[0]?.body ?? "";
    expect(sent).toContain("[agentloop: plan mode is on.");
    expect(sentTools(model)).toEqual(PLAN_TOOLS);
  });

  it("shows the plan on a terminal too, where answers are streamed", async () => {
    const sandbox = freshSandbox();
    model.script([exitPlanMode("toolu_x")], writesPlanAt(1));
    const terminal = openTerminal({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["-p", ...PLAN_MODE, "plan it"],
    });
    expect(await terminal.exited).toBe(0);
    expect(terminal.output()).toContain("1. Change notes.txt to say two.");
  });

  it("gives the plan as the JSON result, and a --continue goes on in plan mode", async () => {
    const sandbox = withNotes(freshSandbox());
    const plan = writesPlanAt(1);
    model.script([exitPlanMode("toolu_x")], plan);
    const first = await run(sandbox, [...PLAN_MODE, "--output-format", "json", "plan it"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      subtype: "success",
      result: PLAN.trimEnd(),
      stop_reason: "end_turn",
    });
    expect(recordedModes(sandbox)).toEqual(["plan"]);

    model.script([
      reply(toolUse("toolu_w", "write", { file_path: "notes.txt", content: "two\n" })),
      reply(text("Still planning.")),
    ]);
    const resumed = await run(sandbox, ["--continue", "--output-format", "json", "go on"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sentTools(model)).toContain("exit_plan_mode");
    const last = model.requests().at(-1)?.body ?? "";
    expect(last).toContain("Permission denied: plan mode changes no file but the plan file");
    expect(snapshot(sandbox.workspace)).toEqual({ "notes.txt": "one\n" });
  });
});

describe("plan mode across a compaction", () => {
  it("is restated beside the summary with the plan file", async () => {
    const model = await startFakeModel("anthropic", { contextWindow: 8_000 });
    try {
      const long = "Let me look at this part carefully before going on with the plan. ".repeat(30);
      const turns: FakeTurn[] = [];
      for (let k = 1; k <= 12; k += 1) {
        turns.push(reply(text(long), toolUse(`toolu_b${k}`, "bash", { command: `echo ${k}` })));
      }
      turns.push(reply(text("Looked.")));
      model.script(turns, {
        intercept: ({ lastUserText }) =>
          lastUserText.includes("[agentloop] The conversation has grown too long")
            ? reply(text("The files were looked at one by one."))
            : undefined,
      });
      const sandbox = freshSandbox();
      const args = [...PLAN_MODE, "--context-window", "8000", "--output-format", "json", "look"];
      const run = await runCli(args, {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      expect(run.code, run.stderr).toBe(0);
      const summaries = onlySession(sandbox).entries.filter(
        (entry) => entry.type === "compaction" && entry.kind === "summary",
      );
      expect(summaries.length).toBeGreaterThan(0);
      const last = model.requests().at(-1)?.body ?? "";
      expect(last).toContain("[agentloop] Plan mode is still on, as when the earlier turns");
      expect(last).toMatch(/change no file but your plan, \/\S+\/plan\.md, which/);
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe("plan mode in the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const startRepl = (sandbox: Sandbox, args: string[] = []) =>
    openRepl({ env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace, args });

  /** The bodies of the requests sent since the test began. */
  let first = 0;
  const sent = (index: number) => model.requests()[first + index]?.body ?? "";
  beforeEach(() => {
    first = model.requestCount();
  });

  /**
   * A REPL in plan mode whose model writes the plan, calls exit_plan_mode, then writes `file`
   * and answers `answer`; resolves once the plan waits for approval, with what the screen showed.
   */
  async function planShown(sandbox: Sandbox, file: string, answer: string) {
    model.script(
      [
        exitPlanMode("toolu_x"),
        reply(toolUse("toolu_w", "write", { file_path: file, content: "two\n" })),
        reply(text(answer)),
      ],
      writesPlanAt(1),
    );
    const terminal = await startRepl(sandbox, PLAN_MODE);
    const screen = await terminal.press("change notes.txt to say two\r", APPROVAL);
    return { terminal, screen };
  }

  it("shows the plan for approval; approved, the session goes on in ask mode", async () => {
    const sandbox = withNotes(freshSandbox());
    const { terminal, screen } = await planShown(sandbox, "two.txt", "Changed.");
    expect(screen).toMatch(/Approve this plan \(\/\S+\/plan\.md\)\?/);
    expect(screen).toContain("  1. Change notes.txt to say two.");
    // In ask mode the write is asked about: the question proves the mode.
    await terminal.press("y\r", /Allow write of two\.txt\?[\s\S]*you may say why: /);
    await terminal.enter("y", /Changed\./);
    expect(await terminal.exit()).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "two.txt"), "utf8")).toBe("two\n");
    expect(recordedModes(sandbox)).toEqual(["plan", "ask"]);
    expect(sent(2)).toContain("The user approved the plan. Plan mode is over");
    model.script([]);
  });

  it("rejected, stays in plan mode with the person's feedback for the model", async () => {
    const sandbox = withNotes(freshSandbox());
    const { terminal } = await planShown(sandbox, "notes.txt", "I will revise the plan.");
    await terminal.enter("first add a test for it", /I will revise the plan\./);
    expect(await terminal.exit()).toBe(0);
    expect(sent(2)).toContain(
      'The user did not approve the plan. They said: \\"first add a test for it\\"',
    );
    // Still plan mode: the write is refused without a question.
    const last = model.requests().at(-1)?.body ?? "";
    expect(last).toContain("Permission denied: plan mode changes no file but the plan file");
    expect(readFileSync(join(sandbox.workspace, "notes.txt"), "utf8")).toBe("one\n");
    expect(recordedModes(sandbox)).toEqual(["plan"]);
    model.script([]);
  });

  it("/plan enters plan mode mid-session and tells the model; /plan again leaves it", async () => {
    const sandbox = withNotes(freshSandbox());
    model.script([reply(text("Hello.")), reply(text("Planning.")), reply(text("Back."))]);
    const terminal = await startRepl(sandbox);
    await terminal.enter("hi", /Hello\./);
    expect(sentTools(model)).toEqual(
      sorted([...CRON_TOOLS, "agent", "bash", "edit", "read", "web_fetch", "web_search", "write"]),
    );
    const on = await terminal.enter("/plan", /Plan mode on/);
    expect(on).toMatch(/the file tools write only the plan file, \/\S+\/plan\.md/);
    await terminal.enter("plan the change", /Planning\./);
    expect(sent(1)).toContain("[agentloop: plan mode is on.");
    expect(sentTools(model)).toEqual(sorted([...PLAN_TOOLS, ...CRON_TOOLS]));
    await terminal.enter("/permissions", /Permission mode plan/);
    await terminal.enter("/plan", /Plan mode off: permission mode ask/);
    await terminal.enter("now do it", /Back\./);
    expect(sent(2)).toContain("[agentloop: plan mode is off");
    // The todo list goes on after plan mode; exit_plan_mode does not.
    const after = [
      "agent",
      "bash",
      "edit",
      "read",
      "todo_write",
      "web_fetch",
      "web_search",
      "write",
    ];
    expect(sentTools(model)).toEqual(sorted([...after, ...CRON_TOOLS]));
    expect(await terminal.exit()).toBe(0);
    expect(recordedModes(sandbox)).toEqual(["plan", "ask"]);
    model.script([]);
  });

  it("Shift-Tab at the prompt turns plan mode on and off, as /plan does", async () => {
    const sandbox = freshSandbox();
    const terminal = await startRepl(sandbox);
    await terminal.press("\x1b[Z", /Plan mode on: [\s\S]*› /);
    await terminal.enter("/permissions", /Permission mode plan/);
    await terminal.press("\x1b[Z", /Plan mode off: permission mode ask[\s\S]*› /);
    expect(await terminal.exit()).toBe(0);
    expect(recordedModes(sandbox)).toEqual(["plan", "ask"]);
  });

  it.runIf(process.platform === "linux")(
    "/plan where the read-only sandbox cannot start says why and leaves the mode as it was",
    async () => {
      const sandbox = freshSandbox();
      // A PATH with the terminal's python3 on it and no bwrap.
      const bin = join(sandbox.home, "bin");
      mkdirSync(bin);
      symlinkSync(
        execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
          encoding: "utf8",
        }).trim(),
        join(bin, "python3"),
      );
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env(), PATH: bin },
        cwd: sandbox.workspace,
      });
      await terminal.enter(
        "/plan",
        /agentloop: The sandbox cannot start \(bwrap is not installed\)/,
      );
      await terminal.enter("/permissions", /Permission mode ask/);
      expect(await terminal.exit()).toBe(0);
      expect(recordedModes(sandbox)).toEqual([]);
    },
  );
});
