// Hooks (chapter s04) through the built CLI against the fake Anthropic server, with real bash
// and Node scripts as the hooks: what each event's hook reads on stdin, what its exit code and
// JSON do to the step it runs at, its timeout, the trust asked of a project's hooks, and Ctrl-C.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import { buildTimeline } from "../src/viewer/timeline.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent } from "./support/schemas.js";
import { openRepl, openTerminal } from "./support/terminal.js";

type Event = { type: string; [key: string]: unknown };
type Settings = Record<string, unknown>;

const NODE = process.execPath;
const YOLO = ["--permission-mode", "yolo"];

/** A hook script in the sandbox's home, executable, run as `bash FILE` or `node FILE`. */
function script(sandbox: Sandbox, name: string, body: string): string {
  const directory = join(sandbox.home, "hooks");
  mkdirSync(directory, { recursive: true });
  const path = join(directory, name);
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return name.endsWith(".mjs") ? `"${NODE}" ${path}` : `bash ${path}`;
}

function userSettings(sandbox: Sandbox, settings: Settings) {
  const directory = join(sandbox.home, ".config", "agentloop");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "settings.json"), JSON.stringify(settings));
}

function projectSettings(sandbox: Sandbox, settings: Settings) {
  mkdirSync(join(sandbox.workspace, ".agentloop"), { recursive: true });
  writeFileSync(join(sandbox.workspace, ".agentloop", "settings.json"), JSON.stringify(settings));
}

const hooksFor = (event: string, command: string, extra: Settings = {}, matcher?: string) => ({
  hooks: {
    [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command, ...extra }] }],
  },
});

/** Running: not gone, and not a zombie left for a parent that no longer reaps it. */
const isAlive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("hooks", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(sandbox: Sandbox, turns: FakeTurn[], args: string[] = YOLO, prompt = "go") {
    model.script(turns);
    const before = model.requestCount();
    const result = await runCli(["--output-format", "stream-json", ...args, "-p", prompt], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    const lines = result.stdout.trim().split("\n").filter(Boolean);
    const events = lines.map((line) => JSON.parse(line) as Event);
    const bodies = model
      .requests()
      .slice(before)
      .map(
        (request) => JSON.parse(request.body) as { messages: { role: string; content: unknown }[] },
      );
    return { ...result, events, bodies, hookRuns: events.filter((event) => event.type === "hook") };
  }

  const toolResults = (events: Event[]) =>
    events.flatMap((event) => (event.type === "tool_end" ? [event.result as ToolResultBlock] : []));

  describe("PreToolUse", () => {
    const rmCall = [
      reply(toolUse("toolu_rm", "bash", { command: "rm keep.txt" })),
      reply(text("OK.")),
    ];

    it("matched by Bash, refuses an rm with exit 2: the model reads its stderr and the file survives", async () => {
      const sandbox = freshSandbox();
      writeFileSync(join(sandbox.workspace, "keep.txt"), "precious\n");
      const guard = script(
        sandbox,
        "no-rm.sh",
        'input=$(cat)\nif grep -q \'"command":"rm \' <<<"$input"; then echo "rm is not allowed here; move files to trash/ instead" >&2; exit 2; fi\nexit 0\n',
      );
      userSettings(sandbox, hooksFor("PreToolUse", guard, {}, "Bash"));
      const { code, events, hookRuns } = await run(sandbox, rmCall);
      expect(code).toBe(0);
      const [result] = toolResults(events);
      expect(result?.is_error).toBe(true);
      expect(result?.content).toContain("rm is not allowed here; move files to trash/ instead");
      expect(readFileSync(join(sandbox.workspace, "keep.txt"), "utf8")).toBe("precious\n");
      expect(hookRuns).toMatchObject([
        {
          event: "PreToolUse",
          exitCode: 2,
          decision: "block",
          toolUseId: "toolu_rm",
          source: "user",
        },
      ]);
      for (const event of events.filter((event) => event.type !== "result")) {
        expect(validEvent(event), JSON.stringify(event)).toBe(true);
      }
    });

    it("lets a call it does not match run: Bash does not match the edit tool", async () => {
      const sandbox = freshSandbox();
      const guard = script(sandbox, "refuse.sh", "echo no >&2; exit 2\n");
      userSettings(sandbox, hooksFor("PreToolUse", guard, {}, "Bash"));
      const write = toolUse("toolu_w", "write", { file_path: "new.txt", content: "hi\n" });
      const { hookRuns } = await run(sandbox, [reply(write), reply(text("Written."))]);
      expect(hookRuns).toEqual([]);
      expect(readFileSync(join(sandbox.workspace, "new.txt"), "utf8")).toBe("hi\n");
    });

    it("denies through JSON: permissionDecision deny, its reason the error result", async () => {
      const sandbox = freshSandbox();
      writeFileSync(join(sandbox.workspace, "keep.txt"), "precious\n");
      const policy = script(
        sandbox,
        "policy.mjs",
        `let input = "";
for await (const chunk of process.stdin) input += chunk;
const call = JSON.parse(input);
const deny = call.tool_input.command.startsWith("rm ");
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse",
  permissionDecision: deny ? "deny" : "allow", permissionDecisionReason: "policy 7: no deleting" } }));
`,
      );
      userSettings(sandbox, hooksFor("PreToolUse", policy, {}, "Bash"));
      const { events, hookRuns } = await run(sandbox, rmCall);
      const [result] = toolResults(events);
      expect(result).toMatchObject({ is_error: true });
      expect(result?.content).toContain("policy 7: no deleting");
      expect(existsSync(join(sandbox.workspace, "keep.txt"))).toBe(true);
      expect(hookRuns).toMatchObject([{ exitCode: 0, decision: "block" }]);
    });
  });

  it("gives PostToolUse the call and its result on stdin", async () => {
    const sandbox = freshSandbox();
    const log = join(sandbox.home, "calls.jsonl");
    const logger = script(sandbox, "log.sh", `cat >> ${log}\necho >> ${log}\n`);
    userSettings(sandbox, hooksFor("PostToolUse", logger));
    const echo = toolUse("toolu_echo", "bash", { command: "echo logged" });
    const { events } = await run(sandbox, [reply(echo), reply(text("Done."))]);
    const [logged] = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const result = events.at(-1) as Event;
    expect(logged).toMatchObject({
      hook_event_name: "PostToolUse",
      session_id: result.session_id,
      cwd: sandbox.workspace,
      permission_mode: "yolo",
      tool_name: "bash",
      tool_input: { command: "echo logged" },
      tool_use_id: "toolu_echo",
      tool_response: { is_error: false },
    });
    expect(logged.tool_response.content).toContain("logged");
    expect(logged.transcript_path).toBe(onlySession(sandbox).path);
  });

  it("adds UserPromptSubmit's stdout to the first request, after the prompt", async () => {
    const sandbox = freshSandbox();
    const context = script(sandbox, "ticket.sh", 'echo "The ticket in progress is ABC-123."\n');
    userSettings(sandbox, hooksFor("UserPromptSubmit", context));
    const { bodies } = await run(sandbox, [reply(text("Noted."))], YOLO, "what ticket?");
    expect(bodies[0]?.messages[0]?.content).toMatchObject([
      { type: "text", text: "what ticket?" },
      { type: "text", text: expect.stringContaining("The ticket in progress is ABC-123.") },
    ]);
  });

  it("drops a prompt that UserPromptSubmit blocks, and says why", async () => {
    const sandbox = freshSandbox();
    const refuse = script(
      sandbox,
      "secret.sh",
      'echo "prompts may not name the vault" >&2; exit 2\n',
    );
    userSettings(sandbox, hooksFor("UserPromptSubmit", refuse));
    const { code, bodies, stderr } = await run(sandbox, [reply(text("never sent"))]);
    expect(bodies).toEqual([]);
    expect(code).toBe(1);
    expect(stderr).toContain("prompts may not name the vault");
    expect(onlySession(sandbox).messages).toEqual([]);
  });

  describe("Stop", () => {
    const stopGuard = (sandbox: Sandbox, log: string, body: string) =>
      script(
        sandbox,
        "stop.mjs",
        `import { appendFileSync } from "node:fs";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const stop = JSON.parse(input);
appendFileSync(${JSON.stringify(log)}, JSON.stringify(stop) + "\\n");
${body}`,
      );

    it("blocks once: the model goes on with the reason, and the second stop ends the run", async () => {
      const sandbox = freshSandbox();
      const log = join(sandbox.home, "stops.jsonl");
      const guard = stopGuard(
        sandbox,
        log,
        'if (!stop.stop_hook_active) { console.error("run the tests before you finish"); process.exit(2); }\n',
      );
      userSettings(sandbox, hooksFor("Stop", guard));
      const turns = [reply(text("Done.")), reply(text("Tests pass. Done."))];
      const { code, bodies, events } = await run(sandbox, turns);
      expect(code).toBe(0);
      expect(bodies).toHaveLength(2);
      // The provider sends the string as a text block, marked for the prompt cache.
      expect(bodies[1]?.messages.at(-1)).toMatchObject({
        role: "user",
        content: [{ type: "text", text: "Stop hook feedback: run the tests before you finish" }],
      });
      const stops = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(stops.map((stop) => [stop.stop_hook_active, stop.last_assistant_message])).toEqual([
        [false, "Done."],
        [true, "Tests pass. Done."],
      ]);
      expect(events.at(-1)).toMatchObject({
        type: "result",
        subtype: "success",
        result: "Tests pass. Done.",
      });
    });

    it("that always blocks sends the model on 8 times; the 9th block ends the run, saying so", async () => {
      const sandbox = freshSandbox();
      const log = join(sandbox.home, "stops.jsonl");
      const guard = stopGuard(sandbox, log, 'console.error("not yet"); process.exit(2);\n');
      userSettings(sandbox, hooksFor("Stop", guard));
      model.script([reply(text("Done."))], { cycle: true });
      const before = model.requestCount();
      const result = await runCli(["--output-format", "json", ...YOLO, "-p", "go"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      model.script([]);
      expect(model.requestCount() - before).toBe(9);
      expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(9);
      expect(result.stderr).toContain("The Stop hooks blocked 9 times in a row; the run ends here");
      expect(JSON.parse(result.stdout)).toMatchObject({ subtype: "success", num_turns: 9 });
    });
  });

  describe("a failing hook", () => {
    const touch = [
      reply(toolUse("toolu_t", "bash", { command: "touch made.txt" })),
      reply(text("OK.")),
    ];

    it("that crashes is a non-blocking error: shown on stderr and as its event, and the call runs", async () => {
      const sandbox = freshSandbox();
      const crash = script(
        sandbox,
        "crash.mjs",
        'throw new Error("the policy file is missing");\n',
      );
      userSettings(sandbox, hooksFor("PreToolUse", crash));
      const { stderr, hookRuns } = await run(sandbox, touch);
      expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(true);
      expect(hookRuns).toMatchObject([{ exitCode: 1, decision: "error" }]);
      expect(hookRuns[0]?.reason).toContain("the policy file is missing");
      expect(stderr).toMatch(/PreToolUse hook .* failed, and was passed over: exited with code 1/);
    });

    it('with "onFailure": "block" blocks when it crashes', async () => {
      const sandbox = freshSandbox();
      const crash = script(
        sandbox,
        "crash.mjs",
        'throw new Error("the policy file is missing");\n',
      );
      userSettings(sandbox, hooksFor("PreToolUse", crash, { onFailure: "block" }));
      const { events, hookRuns } = await run(sandbox, touch);
      expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(false);
      expect(toolResults(events)[0]).toMatchObject({ is_error: true });
      expect(toolResults(events)[0]?.content).toContain('its "onFailure" is "block"');
      expect(hookRuns).toMatchObject([{ decision: "block" }]);
    });

    it("that sleeps past its timeout is killed with its child, shown, and the run goes on", async () => {
      const sandbox = freshSandbox();
      const pidFile = join(sandbox.home, "child.pid");
      const slow = script(sandbox, "slow.sh", `sleep 60 &\necho $! > ${pidFile}\nwait\n`);
      userSettings(sandbox, hooksFor("PreToolUse", slow, { timeout: 1 }));
      const started = performance.now();
      const { code, stderr, hookRuns } = await run(sandbox, touch);
      expect(code).toBe(0);
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(true);
      expect(hookRuns).toMatchObject([{ exitCode: null, decision: "error" }]);
      expect(stderr).toContain("timed out after 1 s and was killed with its children");
      expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
    });
  });

  describe("a project's hooks", () => {
    function projectWithHook(sandbox: Sandbox) {
      const marker = join(sandbox.home, "project-hook-ran");
      projectSettings(sandbox, hooksFor("UserPromptSubmit", `touch ${marker}`));
      return marker;
    }

    it("are skipped headless without approval, with a line saying so", async () => {
      const sandbox = freshSandbox();
      const marker = projectWithHook(sandbox);
      const { code, stderr } = await run(sandbox, [reply(text("Hi."))]);
      expect(code).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(stderr).toContain("1 hook from");
      expect(stderr).toContain(
        'hooks a project defines need your approval; run agentloop at a terminal in permission mode ask to be asked, or add "allowProjectHooks": true',
      );
    });

    it("run once the user's settings allow them, but not when the project's own settings try to", async () => {
      const sandbox = freshSandbox();
      const marker = projectWithHook(sandbox);
      const ownApproval = {
        ...hooksFor("UserPromptSubmit", `touch ${marker}`),
        allowProjectHooks: true,
      };
      projectSettings(sandbox, ownApproval);
      const refused = await run(sandbox, [reply(text("Hi."))]);
      expect(existsSync(marker)).toBe(false);
      expect(refused.stderr).toContain('"allowProjectHooks" in');
      userSettings(sandbox, { allowProjectHooks: true });
      const allowed = await run(sandbox, [reply(text("Hi."))]);
      expect(existsSync(marker)).toBe(true);
      expect(allowed.hookRuns).toMatchObject([{ event: "UserPromptSubmit", source: "project" }]);
    });

    it("are asked about once at the REPL, and the answer is remembered until they change", async () => {
      const sandbox = freshSandbox();
      const marker = projectWithHook(sandbox);
      const env = { ...sandbox.env, ...model.env() };
      model.script([reply(text("Hi."))], { cycle: true });
      // The question comes before the first prompt.
      const terminal = openTerminal({ env, cwd: sandbox.workspace });
      await terminal.waitFor(/Allow the hooks of .*settings\.json to run\?/);
      await terminal.press("y\r", /› /);
      await terminal.enter("hello", /Hi\./);
      expect(existsSync(marker)).toBe(true);
      await terminal.exit();
      const again = await openRepl({ env, cwd: sandbox.workspace });
      expect(again.output()).not.toContain("Allow the hooks");
      await again.exit();
      model.script([]);
    });
  });

  it("lets Ctrl-C end a slow hook at once: its process group is killed and the turn stops", async () => {
    const sandbox = freshSandbox();
    const pidFile = join(sandbox.home, "sleep.pid");
    const slow = script(sandbox, "slow.sh", `sleep 120 &\necho $! > ${pidFile}\nwait\n`);
    userSettings(sandbox, hooksFor("PreToolUse", slow));
    model.script([reply(toolUse("toolu_s", "bash", { command: "echo hi" })), reply(text("OK."))]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    terminal.type("run it\r");
    const deadline = Date.now() + 10_000;
    while (!existsSync(pidFile) && Date.now() < deadline)
      await new Promise((done) => setTimeout(done, 20));
    const pid = Number(readFileSync(pidFile, "utf8"));
    const pressed = performance.now();
    const shown = await terminal.press("\x03", /interrupted by the user[\s\S]*› /);
    expect(performance.now() - pressed).toBeLessThan(3000);
    expect(shown).toMatch(
      /PreToolUse hook .* failed, and was passed over: interrupted by the user/,
    );
    expect(isAlive(pid)).toBe(false);
    await terminal.exit();
    model.script([]);
  });

  it("fires SessionStart, PreCompact and SessionEnd at the REPL, and /hooks lists them", async () => {
    const sandbox = freshSandbox();
    const log = join(sandbox.home, "session-events.jsonl");
    const logger = script(sandbox, "log.sh", `cat >> ${log}\necho >> ${log}\n`);
    const starter = script(
      sandbox,
      "start.sh",
      `cat >> ${log}\necho >> ${log}\necho "This project builds with pnpm."\n`,
    );
    const command = (value: string) => [{ hooks: [{ type: "command", command: value }] }];
    userSettings(sandbox, {
      hooks: {
        SessionStart: command(starter),
        PreCompact: command(logger),
        SessionEnd: command(logger),
      },
    });
    model.script([reply(text("Hello.")), reply(text("Fine.")), reply(text("Still here."))], {
      intercept: ({ lastUserText }) =>
        lastUserText.includes("[agentloop] The conversation")
          ? reply(text("We said hello."))
          : undefined,
    });
    const before = model.requestCount();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    const listed = await terminal.enter("/hooks", /PreCompact/);
    expect(listed).toContain("(your settings):");
    expect(listed).toContain(`SessionStart: ${starter}`);
    await terminal.enter("hi", /Hello\./);
    await terminal.enter("how are you?", /Fine\./);
    await terminal.enter("/compact greetings", /Compacted\./);
    await terminal.enter("still there?", /Still here\./);
    await terminal.exit();
    model.script([]);
    const logged = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(
      logged.map((entry) => [entry.hook_event_name, entry.source ?? entry.trigger ?? entry.reason]),
    ).toEqual([
      ["SessionStart", "startup"],
      ["PreCompact", "manual"],
      ["SessionStart", "compact"],
      ["SessionEnd", "other"],
    ]);
    expect(logged[1].custom_instructions).toBe("greetings");
    const firstPrompt = JSON.stringify(
      JSON.parse(model.requests()[before]?.body ?? "{}").messages[0],
    );
    expect(firstPrompt).toContain("This project builds with pnpm.");
  });

  it("tells SessionStart a resumed session from a new one", async () => {
    const sandbox = freshSandbox();
    const log = join(sandbox.home, "starts.jsonl");
    userSettings(sandbox, hooksFor("SessionStart", `cat >> ${log}; echo >> ${log}`));
    await run(sandbox, [reply(text("One."))]);
    await run(sandbox, [reply(text("Two."))], [...YOLO, "--continue"]);
    const sources = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).source);
    expect(sources).toEqual(["startup", "resume"]);
  });

  it("records each run in the session file, where the viewer shows it", async () => {
    const sandbox = freshSandbox();
    userSettings(sandbox, hooksFor("PostToolUse", "echo formatted"));
    await run(sandbox, [
      reply(toolUse("toolu_e", "bash", { command: "echo hi" })),
      reply(text("OK.")),
    ]);
    const session = onlySession(sandbox);
    const entries = session.entries.filter((entry) => entry.type === "hook");
    const formatted = {
      event: "PostToolUse",
      command: "echo formatted",
      exitCode: 0,
      decision: "continue",
      output: "formatted",
    };
    expect(entries).toMatchObject([formatted]);
    // The checkpoint before the prompt and the note after it stop are markers of their own.
    const kinds = buildTimeline(session).items.map((item) => item.kind);
    expect(kinds).toEqual([
      "marker",
      // Between the reply that asked for the call and the results it led to.
      ...["message", "message", "hook", "message", "message", "stop"],
      "marker",
    ]);
  });
});
