// MCP servers through the built CLI against the fake Anthropic server: the user's own servers
// (--mcp-config, over stdio and HTTP) offered beside the built-in tools and called, a
// repository's .mcp.json started only once the user allows it (in their settings, or at the
// terminal, remembered until the definition changes), a server that does not start, and
// `agentloop mcp list`. No server process outlives the run.

import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { processesRunning, scratch, startHttpServer, TEST_SERVER } from "./support/mcp-servers.js";
import { isAlive } from "./support/processes.js";
import { openTerminal, type Terminal } from "./support/terminal.js";

interface ToolResult {
  type: string;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}

interface Body {
  tools?: { name: string; description: string; input_schema: unknown }[];
  messages: { role: string; content: string | ToolResult[] }[];
}

const bodies = (model: FakeModel) =>
  model.requests().map((request) => JSON.parse(request.body) as Body);

/** What a session offers by default, before any MCP server's tools. */
const BUILT_IN_TOOLS = ["bash", "read", "write", "edit", "agent"];
/** At the REPL, where queued prompts run, the scheduled prompts' tools come after them. */
const AT_THE_REPL = [...BUILT_IN_TOOLS, "cron_create", "cron_list", "cron_delete"];
/** The web's tools, offered by default (and not MCP's). */
const WEB_TOOLS = new Set(["web_fetch", "web_search"]);
/** The tools offered, but for the web's. */
const toolNames = (body: Body | undefined) =>
  body?.tools?.map((tool) => tool.name).filter((name) => !WEB_TOOLS.has(name)) ?? [];

/** The tool results the last message of a request carries, by tool_use_id. */
function lastResults(body: Body | undefined): Record<string, ToolResult> {
  const last = body?.messages.at(-1);
  const blocks = typeof last?.content === "string" ? [] : (last?.content ?? []);
  return Object.fromEntries(
    blocks.filter((b) => b.type === "tool_result").map((b) => [b.tool_use_id, b]),
  );
}

/** A tag the test server ignores, there to find its process by its command line. */
const newTag = () => `cli-mcp-${randomUUID()}`;

/** The test server over stdio, as a definition in .mcp.json's format. */
const stdioDefinition = (tag: string) => ({
  command: process.execPath,
  args: [TEST_SERVER, `--tag=${tag}`],
});

function writeJson(path: string, value: unknown): string {
  mkdirSync(resolve(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

/** An --mcp-config file outside the workspace, as a user keeps one. */
const userConfig = (sandbox: Sandbox, servers: Record<string, unknown>) =>
  writeJson(join(sandbox.home, `mcp-${randomUUID()}.json`), { mcpServers: servers });

const userSettings = (sandbox: Sandbox, settings: Record<string, unknown>) =>
  writeJson(join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json"), settings);

const projectServers = (sandbox: Sandbox, servers: Record<string, unknown>) =>
  writeJson(join(sandbox.workspace, ".mcp.json"), { mcpServers: servers });

/** The lines agentloop wrote to stderr about MCP. */
const mcpNotices = (stderr: string) =>
  stderr.split("\n").filter((line) => /^agentloop: .*MCP/.test(line));

describe("MCP servers in a one-shot run", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("offers a --mcp-config server's tools beside the built-in ones, calls them, and leaves no process behind", async () => {
    const sandbox = freshSandbox();
    const tag = newTag();
    const config = userConfig(sandbox, { test: stdioDefinition(tag) });
    model.script([
      reply(
        toolUse("e1", "mcp__test__echo", { text: "hello from the model" }),
        toolUse("a1", "mcp__test__add", { a: 2, b: 40 }),
      ),
      reply(toolUse("f1", "mcp__test__fail", {}), toolUse("s1", "mcp__test__spawn", {})),
      reply(text("Done.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(["--mcp-config", config, "-p", "use the test server"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.stderr).not.toMatch(/MCP/);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Done.");

    const sent = bodies(model).slice(before);
    expect(sent).toHaveLength(3);
    const names = toolNames(sent[0]);
    expect(names.slice(0, 5)).toEqual(BUILT_IN_TOOLS);
    expect(names).toEqual(
      expect.arrayContaining(["mcp__test__echo", "mcp__test__add", "mcp__test__fail"]),
    );
    expect(names.slice(5).every((name) => name.startsWith("mcp__test__"))).toBe(true);
    const echo = sent[0]?.tools?.find((tool) => tool.name === "mcp__test__echo");
    expect(echo).toMatchObject({
      description: "Returns the text it is given.",
      input_schema: { type: "object", properties: { text: { type: "string" } } },
    });

    expect(lastResults(sent[1])).toEqual({
      e1: expect.objectContaining({ content: "hello from the model", is_error: false }),
      a1: expect.objectContaining({ content: "42", is_error: false }),
    });
    const second = lastResults(sent[2]);
    expect(second.f1).toMatchObject({ content: "it failed on purpose", is_error: true });
    // The processes the server started outlive the call, but not the session.
    const pids = String(second.s1?.content).split(" ").map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.every((pid) => pid > 0)).toBe(true);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(processesRunning(tag)).toEqual([]);
  });

  it("reaches an HTTP server, with a header expanded from the environment", async () => {
    const sandbox = freshSandbox();
    const place = scratch();
    const server = await startHttpServer(place.events);
    try {
      const config = userConfig(sandbox, {
        test: {
          type: "http",
          url: server.url,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: agentloop expands it, not JavaScript.
          headers: { "X-Test-Token": "${MCP_TEST_TOKEN}" },
        },
      });
      model.script([
        reply(
          toolUse("e1", "mcp__test__echo", { text: "over http" }),
          toolUse("a1", "mcp__test__add", { a: 1, b: 2 }),
        ),
        reply(toolUse("f1", "mcp__test__fail", {})),
        reply(text("Done.")),
      ]);
      const before = model.requestCount();
      const run = await runCli(["--mcp-config", config, "-p", "use the http server"], {
        env: { ...sandbox.env, ...model.env(), MCP_TEST_TOKEN: "token-from-env" },
        cwd: sandbox.workspace,
      });
      expect(run.stderr).not.toMatch(/MCP/);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe("Done.");

      const sent = bodies(model).slice(before);
      expect(toolNames(sent[0])).toEqual(
        expect.arrayContaining(["bash", "mcp__test__echo", "mcp__test__add", "mcp__test__fail"]),
      );
      expect(lastResults(sent[1])).toEqual({
        e1: expect.objectContaining({ content: "over http", is_error: false }),
        a1: expect.objectContaining({ content: "3", is_error: false }),
      });
      expect(lastResults(sent[2]).f1).toMatchObject({
        content: "it failed on purpose",
        is_error: true,
      });
      const headers = place.read().filter((line) => line.startsWith("header "));
      expect(headers.length).toBeGreaterThan(0);
      expect(new Set(headers)).toEqual(new Set(["header token-from-env"]));
    } finally {
      await server.stop();
    }
  });

  it("does not start a repository's .mcp.json server until the user's own settings allow it", async () => {
    const sandbox = freshSandbox();
    const tag = newTag();
    // Started through sh, which leaves a mark: the server did or did not run.
    const started = join(sandbox.home, "started.log");
    const mcpJson = projectServers(sandbox, {
      test: {
        command: "sh",
        args: [
          "-c",
          'echo started >> "$0"; exec "$1" "$2" "$3"',
          started,
          ...[stdioDefinition(tag).command, ...stdioDefinition(tag).args],
        ],
      },
    });
    const settingsFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    const runOnce = async () => {
      model.script([reply(text("ok"))]);
      const before = model.requestCount();
      const run = await runCli(["-p", "hi"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      expect(run.code).toBe(0);
      return { run, tools: toolNames(bodies(model)[before]) };
    };

    const notAllowed = await runOnce();
    expect(mcpNotices(notAllowed.run.stderr)).toEqual([
      `agentloop: MCP server "test" from ${mcpJson} was not started: a server the project defines needs your approval; run agentloop at a terminal in permission mode ask to be asked, or add "enabledMcpjsonServers": ["test"] to ${settingsFile}.`,
    ]);
    expect(notAllowed.tools).toEqual(BUILT_IN_TOOLS);
    expect(existsSync(started)).toBe(false);

    // The project's own settings cannot allow it.
    const projectSettings = writeJson(join(sandbox.workspace, ".agentloop", "settings.json"), {
      enabledMcpjsonServers: ["test"],
      enableAllProjectMcpServers: true,
    });
    const selfAllowed = await runOnce();
    const notices = mcpNotices(selfAllowed.run.stderr);
    const ignored = ["enableAllProjectMcpServers", "enabledMcpjsonServers"].map(
      (key) =>
        `agentloop: "${key}" in ${projectSettings} is ignored: only your own settings (${settingsFile}) can allow a project's MCP servers.`,
    );
    expect(notices).toEqual([
      ...ignored,
      expect.stringMatching(/^agentloop: MCP server "test" from .* was not started: /),
    ]);
    expect(selfAllowed.tools).toEqual(BUILT_IN_TOOLS);
    expect(existsSync(started)).toBe(false);

    userSettings(sandbox, { enabledMcpjsonServers: ["test"] });
    const allowed = await runOnce();
    expect(mcpNotices(allowed.run.stderr)).toEqual(ignored);
    expect(allowed.tools).toEqual(expect.arrayContaining(["mcp__test__echo", "mcp__test__add"]));
    expect(readFileSync(started, "utf8")).toBe("started\n");
    expect(processesRunning(tag)).toEqual([]);
  });

  it("goes on without a server that does not start, after one notice line", async () => {
    const sandbox = freshSandbox();
    const config = userConfig(sandbox, { broken: { command: "agentloop-no-such-command" } });
    model.script([
      reply(toolUse("b1", "bash", { command: "echo still working" })),
      reply(text("Done.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(["--mcp-config", config, "-p", "work anyway"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Done.");
    expect(mcpNotices(run.stderr)).toEqual([
      'agentloop: MCP server "broken" did not start: the command "agentloop-no-such-command" was not found',
    ]);
    const sent = bodies(model).slice(before);
    expect(toolNames(sent[0])).toEqual(BUILT_IN_TOOLS);
    expect(lastResults(sent[1]).b1).toMatchObject({ is_error: false });
  });
});

describe("MCP time limits from the environment", () => {
  it("cancels a call that takes longer than MCP_TOOL_TIMEOUT, and says so to the model", async () => {
    const model = await startFakeModel("anthropic");
    try {
      const sandbox = freshSandbox();
      const config = userConfig(sandbox, { test: stdioDefinition(newTag()) });
      model.script([
        reply(toolUse("s1", "mcp__test__slow", { ms: 5_000 })),
        reply(text("Too slow.")),
      ]);
      const before = model.requestCount();
      const run = await runCli(["--mcp-config", config, "-p", "be slow"], {
        env: { ...sandbox.env, ...model.env(), MCP_TOOL_TIMEOUT: "300" },
        cwd: sandbox.workspace,
      });
      expect(run.code).toBe(0);
      const result = lastResults(bodies(model)[before + 1]).s1;
      expect(result).toMatchObject({ is_error: true });
      expect(result?.content).toMatch(/did not answer within 0\.3 s; it was cancelled/);
      const bad = await runCli(["--mcp-config", config, "-p", "x"], {
        env: { ...sandbox.env, ...model.env(), MCP_TOOL_TIMEOUT: "soon" },
        cwd: sandbox.workspace,
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /MCP_TOOL_TIMEOUT must be a whole number of milliseconds, got "soon"\./,
      );
    } finally {
      await model.close();
    }
  });
});

describe("agentloop mcp list", () => {
  it("shows each server's state, tools and bytes per request, and those bytes are what a request carries", async () => {
    const sandbox = freshSandbox();
    const tag = newTag();
    const config = userConfig(sandbox, {
      test: stdioDefinition(tag),
      broken: { command: "agentloop-no-such-command" },
    });
    const mcpJson = projectServers(sandbox, { project: stdioDefinition(newTag()) });
    const env = { ...sandbox.env };
    const list = await runCli(["mcp", "list", "--mcp-config", config], {
      env,
      cwd: sandbox.workspace,
    });
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split("\n");

    const header = lines.find((line) => line.startsWith("test  "));
    const summary =
      /^test {2}connected {2}(\d+) tools, ([\d,]+) bytes per request {2}\(flag, (.*)\)$/.exec(
        header ?? "",
      );
    expect(summary, list.stdout).not.toBeNull();
    expect(summary?.[3]).toBe(config);
    const toolLines = lines
      .map((line) => /^ {2}(mcp__test__\w+) {2}([\d,]+) B$/.exec(line))
      .filter((match) => match !== null);
    expect(toolLines).toHaveLength(Number(summary?.[1]));
    const bytesOf = (digits: string | undefined) => Number(digits?.replaceAll(",", ""));
    const perTool: Record<string, number> = Object.fromEntries(
      toolLines.map((match) => [match[1], bytesOf(match[2])]),
    );
    expect(Object.keys(perTool)).toEqual(
      expect.arrayContaining(["mcp__test__echo", "mcp__test__add", "mcp__test__fail"]),
    );
    const total = Object.values(perTool).reduce((sum, bytes) => sum + bytes, 0);
    expect(bytesOf(summary?.[2])).toBe(total);

    expect(lines).toContain(`project  not started: needs your approval  (project, ${mcpJson})`);
    expect(lines).toContain(
      `broken  failed: the command "agentloop-no-such-command" was not found  (flag, ${config})`,
    );
    expect(lines.at(-1)).toMatch(/^MCP server "project" from .* was not started: /);
    expect(processesRunning(tag)).toEqual([]);

    // A request offers the same definitions, byte for byte.
    const model = await startFakeModel("anthropic");
    try {
      model.script([reply(text("ok"))]);
      const run = await runCli(["--mcp-config", config, "-p", "hi"], {
        env: { ...env, ...model.env() },
        cwd: sandbox.workspace,
      });
      expect(run.code).toBe(0);
      const sent = Object.fromEntries(
        (bodies(model)[0]?.tools ?? [])
          .filter((tool) => tool.name.startsWith("mcp__"))
          .map(({ name, description, input_schema }) => [
            name,
            Buffer.byteLength(JSON.stringify({ name, description, input_schema })),
          ]),
      );
      expect(sent).toEqual(perTool);
    } finally {
      await model.close();
    }
  });

  it("says how to add servers when there are none", async () => {
    const sandbox = freshSandbox();
    const list = await runCli(["mcp", "list"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      'No MCP servers: define them in .mcp.json, in your settings\' "mcpServers", or with --mcp-config FILE.\n',
    );
  });
});

describe("a repository's MCP server at the terminal", () => {
  it("asks once, remembers the answer, and asks again when the definition changes", async () => {
    const model = await startFakeModel("anthropic");
    const sandbox = freshSandbox();
    const tag = newTag();
    const mcpJson = projectServers(sandbox, { test: stdioDefinition(tag) });
    const inWorkspace = { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace };
    const question = /Allow the MCP server "test" from (.*) to start\?\r?\n/;
    try {
      model.script([
        reply(toolUse("e1", "mcp__test__echo", { text: "asked and allowed" })),
        reply(text("The server said it.")),
      ]);
      const first = openTerminal(inWorkspace);
      await first.waitFor(/\[y\]es, \[n\]o: /);
      expect(question.exec(first.output())?.[1]).toBe(mcpJson);
      first.type("y\r");
      await first.waitFor(/› /);
      await first.enter("say something through the server", /The server said it\./);
      expect(await first.exit()).toBe(0);
      // The read-only echo ran without asking.
      expect(first.output().match(/Allow/g)).toHaveLength(1);
      const sent = bodies(model);
      expect(toolNames(sent[0])).toContain("mcp__test__echo");
      expect(lastResults(sent[1]).e1).toMatchObject({
        content: "asked and allowed",
        is_error: false,
      });
      expect(processesRunning(tag)).toEqual([]);

      // Remembered: the next session starts it without asking.
      /** Sends one prompt in a terminal at its prompt; the tools its request offered. */
      const offeredIn = async (terminal: Terminal) => {
        model.script([reply(text("Listed."))]);
        const before = model.requestCount();
        await terminal.waitFor(/› /);
        await terminal.enter("which tools?", /Listed\./);
        expect(await terminal.exit()).toBe(0);
        return toolNames(bodies(model)[before]);
      };
      const second = openTerminal(inWorkspace);
      expect(await offeredIn(second)).toContain("mcp__test__echo");
      expect(second.output()).not.toMatch(/Allow the MCP server/);
      expect(second.output()).not.toMatch(/MCP server/);

      // A changed definition is a new question.
      const otherTag = newTag();
      projectServers(sandbox, { test: stdioDefinition(otherTag) });
      const third = openTerminal(inWorkspace);
      await third.waitFor(/\[y\]es, \[n\]o: /);
      expect(third.output()).toContain(otherTag);
      third.type("n\r");
      expect(await offeredIn(third)).toEqual(AT_THE_REPL);
      expect(processesRunning(otherTag)).toEqual([]);
      const approvals = JSON.parse(
        readFileSync(
          join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "mcp-approvals.json"),
          "utf8",
        ),
      );
      expect(Object.values(approvals.projects)).toEqual([
        { test: expect.objectContaining({ approved: false }) },
      ]);
    } finally {
      await model.close();
    }
  });
});
