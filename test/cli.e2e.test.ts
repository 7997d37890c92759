// The built CLI, run as a real subprocess against a fake model server speaking the real wire
// protocol through the official SDKs. The same specifications hold for both providers.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Protocol,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { closedPortUrl } from "./support/closed-port.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

const bash = (id: string, command: string) => toolUse(id, "bash", { command });

describe.each<Protocol>(["anthropic", "openai", "responses"])(
  "agentloop one-shot against %s",
  (protocol) => {
    let model: FakeModel;
    beforeAll(async () => {
      model = await startFakeModel(protocol);
    });
    afterAll(() => model.close());

    const run = (args: string[], extra: { input?: string; env?: Record<string, string> } = {}) => {
      const sandbox = freshSandbox();
      const env = { ...sandbox.env, ...model.env(), ...extra.env };
      return runCli([...model.flags, ...args], {
        env,
        cwd: sandbox.workspace,
        input: extra.input,
      }).then((result) => ({
        ...result,
        sandbox,
      }));
    };

    it("runs bash, feeds the result back with its id, prints the answer and records everything", async () => {
      model.script([
        reply(
          text("Let me create it."),
          bash("call_1", "echo hello > greeting.txt && cat greeting.txt"),
        ),
        reply(text("Created greeting.txt containing hello.")),
      ]);
      const { code, stdout, stderr, sandbox } = await run(["create greeting.txt"]);
      expect(code).toBe(0);
      expect(stdout).toBe("Created greeting.txt containing hello.\n");
      expect(stderr).toContain("$ echo hello > greeting.txt");
      expect(readFileSync(join(sandbox.workspace, "greeting.txt"), "utf8")).toBe("hello\n");
      expect(model.statuses()).toEqual([200, 200]);

      const session = onlySession(sandbox);
      expect(session.problems).toEqual([]);
      expect(session.header).toMatchObject({ cwd: sandbox.workspace, provider: model.preset });
      expect(session.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(session.messages[2]?.content).toEqual([
        expect.objectContaining({ type: "tool_result", tool_use_id: "call_1", is_error: false }),
      ]);
      expect(JSON.stringify(session.messages[2])).toContain("hello");
      model.script([]);
    });

    it("reads the prompt from stdin with -p", async () => {
      model.script([reply(text("Got it."))]);
      const { code, stdout, sandbox } = await run(["-p"], { input: "what is in stdin?\n" });
      expect(code).toBe(0);
      expect(stdout).toBe("Got it.\n");
      expect(onlySession(sandbox).messages[0]).toEqual({
        role: "user",
        content: "what is in stdin?",
      });
    });

    it("stops at --max-turns with exit code 3 and says why", async () => {
      model.script([
        reply(bash("a", "echo 1")),
        reply(bash("b", "echo 2")),
        reply(bash("c", "echo 3")),
      ]);
      const before = model.requestCount();
      const { code, stderr } = await run(["--max-turns", "2", "loop forever"]);
      expect(code).toBe(3);
      expect(stderr).toMatch(/Stopped after 2 turns \(--max-turns\)/);
      expect(model.requestCount() - before).toBe(2);
      model.script([]);
    });

    it("prints one JSON result with the documented fields", async () => {
      model.script([reply(bash("j1", "true")), reply(text("All done."))]);
      const { code, stdout, sandbox } = await run(["--output-format", "json", "do it"]);
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result).toMatchObject({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "All done.",
        stop_reason: "end_turn",
        num_turns: 2,
        session_id: onlySession(sandbox).header?.id,
      });
      expect(Object.keys(result.usage).sort()).toEqual([
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "input_tokens",
        "output_tokens",
      ]);
      expect(result.usage.output_tokens).toBeGreaterThan(0);
      expect(typeof result.duration_ms).toBe("number");
    });

    it("streams one JSON line per event and ends with the result object", async () => {
      model.script([reply(text("Hi "), bash("s1", "echo streamed")), reply(text("Bye."))]);
      const { code, stdout } = await run(["--output-format", "stream-json", "stream"]);
      expect(code).toBe(0);
      const lines = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const types = lines.map((line) => line.type);
      expect(types).toContain("tool_start");
      expect(types).toContain("tool_end");
      expect(types.at(-2)).toBe("stop");
      expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Bye." });
    });

    it("exits 1 with the reason on a refusal", async () => {
      model.script([
        { kind: "reply", content: [text("I can't help with that.")], stopReason: "refusal" },
      ]);
      const { code, stderr } = await run(["something bad"]);
      expect(code).toBe(1);
      expect(stderr).toMatch(/declined/);
    });

    it("continues the latest session with --continue, sending the earlier history", async () => {
      const sandbox = freshSandbox();
      const env = { ...sandbox.env, ...model.env() };
      model.script([reply(text("The secret word is tulip."))]);
      await runCli([...model.flags, "remember the word tulip"], { env, cwd: sandbox.workspace });
      model.script([reply(text("It was tulip."))]);
      const second = await runCli([...model.flags, "--continue", "what was the word?"], {
        env,
        cwd: sandbox.workspace,
      });
      expect(second.code).toBe(0);
      expect(second.stdout).toBe("It was tulip.\n");
      const session = onlySession(sandbox);
      expect(session.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(session.messages[0]).toEqual({ role: "user", content: "remember the word tulip" });
    });
  },
);

describe("agentloop configuration errors", () => {
  it("exits 2 with one sentence when no model is configured", async () => {
    const sandbox = freshSandbox();
    const { code, stderr, stdout } = await runCli(["hello"], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/No model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
  });

  it("exits 2 with one sentence when the base URL cannot be reached", async () => {
    const sandbox = freshSandbox();
    const closed = await closedPortUrl();
    const env = { ...sandbox.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: closed };
    const { code, stderr } = await runCli(["hello"], { env, cwd: sandbox.workspace });
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain(`Cannot reach the Anthropic API at ${closed}`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("exits 2 naming the model when the server does not know it", async () => {
    const model = await startFakeModel("anthropic");
    model.script([
      {
        kind: "http_error",
        status: 404,
        errorType: "not_found_error",
        message: "model: claude-nope",
      },
    ]);
    const sandbox = freshSandbox();
    const env = { ...sandbox.env, ...model.env(), MODEL_ID: "claude-nope" };
    const { code, stderr } = await runCli(["hello"], { env, cwd: sandbox.workspace });
    await model.close();
    expect(code).toBe(2);
    expect(stderr).toMatch(/claude-nope/);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  it("reads the key and model from a .env file in the working directory", async () => {
    const model = await startFakeModel("anthropic");
    model.script([reply(text("configured by .env"))]);
    const sandbox = freshSandbox();
    writeFileSync(
      join(sandbox.workspace, ".env"),
      `ANTHROPIC_API_KEY=sk-from-dotenv\nANTHROPIC_BASE_URL=${model.url}\nMODEL_ID=claude-haiku-4-5\n`,
    );
    const { code, stdout } = await runCli(["hi"], { env: sandbox.env, cwd: sandbox.workspace });
    await model.close();
    expect(code).toBe(0);
    expect(stdout).toBe("configured by .env\n");
  });

  it("rejects an unknown flag with exit code 2", async () => {
    const sandbox = freshSandbox();
    const { code, stderr } = await runCli(["--frobnicate"], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown option '--frobnicate'/);
  });

  it("prints its version and help", async () => {
    const sandbox = freshSandbox();
    const version = await runCli(["--version"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(version.stdout).toMatch(/^agentloop \d+\.\d+\.\d+\n$/);
    const help = await runCli(["--help"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(help.stdout).toMatch(/--max-turns N/);
  });
});

describe("agentloop sessions", () => {
  it("lists this directory's sessions with their first prompt", async () => {
    const model = await startFakeModel("anthropic");
    model.script([reply(text("ok"))]);
    const sandbox = freshSandbox();
    const env = { ...sandbox.env, ...model.env() };
    await runCli(["list me please"], { env, cwd: sandbox.workspace });
    await model.close();
    const listing = await runCli(["sessions"], { env, cwd: sandbox.workspace });
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain(onlySession(sandbox).header?.id as string);
    expect(listing.stdout).toContain("list me please");
    expect(existsSync(onlySession(sandbox).path)).toBe(true);
  });
});

describe("agentloop safety, end to end", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** A directory beside the workspace that a careless command could destroy. */
  function precious() {
    // Outside /tmp too, which the sandbox replaces: the file must be visible and still safe.
    const outside = mkdtempSync("/var/tmp/agentloop-precious-");
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, "thesis.txt"), "years of work");
    return outside;
  }

  it("in ask mode without a terminal, denies a destructive command and tells the model", async () => {
    const sandbox = freshSandbox();
    const outside = precious();
    model.script([
      reply(bash("rm1", `echo ok && rm -rf ${outside}`)),
      reply(text("I was not allowed.")),
    ]);
    const { code, stdout } = await runCli(["--permission-mode", "ask", "clean up"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(code).toBe(0);
    expect(stdout).toBe("I was not allowed.\n");
    expect(readFileSync(join(outside, "thesis.txt"), "utf8")).toBe("years of work");
    const result = onlySession(sandbox).messages[2]?.content as {
      content: string;
      is_error: boolean;
    }[];
    expect(result[0]?.is_error).toBe(true);
    expect(result[0]?.content).toMatch(/deletes recursively outside the workspace/);
  });

  it("in ask mode without a terminal, denies any command it cannot prove read-only and says how to change that", async () => {
    const sandbox = freshSandbox();
    model.script([reply(bash("t1", "touch new-file")), reply(text("Could not write."))]);
    const { code } = await runCli(["--permission-mode", "ask", "make a file"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(code).toBe(0);
    expect(existsSync(join(sandbox.workspace, "new-file"))).toBe(false);
    const result = onlySession(sandbox).messages[2]?.content as { content: string }[];
    expect(result[0]?.content).toMatch(/--permission-mode/);
  });

  it("in auto mode, runs the command in the sandbox where it cannot touch anything outside the workspace", async () => {
    const sandbox = freshSandbox();
    const outside = precious();
    model.script([
      reply(bash("w1", `echo inside > made-here.txt; echo overwritten > ${outside}/thesis.txt`)),
      reply(text("Done what I could.")),
    ]);
    const { code } = await runCli(["--permission-mode", "auto", "write things"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "made-here.txt"), "utf8")).toBe("inside\n");
    expect(readFileSync(join(outside, "thesis.txt"), "utf8")).toBe("years of work");
    const result = onlySession(sandbox).messages[2]?.content as { content: string }[];
    expect(result[0]?.content).toMatch(/Read-only file system/);
  });

  it("never passes the agent's API key to the commands it runs", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(bash("env1", "env | grep -c sk-ant-test-key || true")),
      reply(text("checked")),
    ]);
    await runCli(["--permission-mode", "yolo", "look at env"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    const result = onlySession(sandbox).messages[2]?.content as { content: string }[];
    expect(result[0]?.content).toMatch(/^0\n/);
  });
});
