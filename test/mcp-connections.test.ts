// MCP servers through the real SDK, over stdio and Streamable HTTP: their tools offered to the
// model, called through the loop, and every way a call or a server can go wrong.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LoopEvent } from "../src/core/events.js";
import type { AssistantBlock, ToolResultBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import type { McpServerEntry } from "../src/mcp/config.js";
import { connectMcpServers, type McpConnections, type McpOptions } from "../src/mcp/connections.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { drain } from "./support/drain.js";
import {
  entry,
  processesRunning,
  refusingUrl,
  scratch,
  startHttpServer,
  stdioServer,
} from "./support/mcp-servers.js";
import { isAlive } from "./support/processes.js";
import { type Script, scriptedProvider, text } from "./support/scripted-provider.js";

const opened: McpConnections[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connections) => connections.close()));
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function connect(servers: McpServerEntry[], options: Partial<McpOptions> = {}) {
  const notices: string[] = [];
  const connections = await connectMcpServers(servers, {
    outputDirectory: join(scratch().directory, "outputs"),
    onNotice: (sentence) => notices.push(sentence),
    ...options,
  });
  opened.push(connections);
  return { connections, notices };
}

/** The test server alone over stdio, with its events file. */
async function testServer(options: Partial<McpOptions> = {}) {
  const place = scratch();
  const tag = `t${Math.random().toString(36).slice(2)}`;
  const { connections, notices } = await connect([stdioServer("test", place.events, tag)], options);
  return { connections, notices, events: place.read, tag };
}

const call = (id: string, name: string, input: Record<string, unknown> = {}): AssistantBlock => ({
  type: "tool_use",
  id,
  name,
  input,
});

async function runLoop(connections: McpConnections, script: Script[], signal?: AbortSignal) {
  const provider = scriptedProvider(script);
  const toolbox = createToolbox(() => connections.tools());
  const state = createLoopState([{ role: "user", content: "use the tools" }]);
  const loop = agentLoop(state, { provider, toolbox, system: "test", maxTurns: 10, signal });
  const { events, result } = await drain(loop);
  return { events, stop: result, results: resultsIn(events) };
}

function resultsIn(events: LoopEvent[]): ToolResultBlock[] {
  return events.flatMap((event) => (event.type === "tool_end" ? [event.result] : []));
}

/** Runs one tool directly, as the toolbox would. */
async function runTool(
  connections: McpConnections,
  name: string,
  input = {},
  signal?: AbortSignal,
) {
  const tool = connections.tools().find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.run(input, { signal: signal ?? new AbortController().signal });
}

describe("MCP servers over stdio", () => {
  it("offer their tools under valid names, with object schemas, read-only when annotated", async () => {
    const { connections, notices } = await testServer();
    expect(notices).toEqual([]);
    const tools = connections.tools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["mcp__test__echo", "mcp__test__add", "mcp__test__slow"]),
    );
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.inputSchema).toMatchObject({ type: "object", properties: expect.any(Object) });
      expect(tool.inputSchema).not.toHaveProperty("$schema");
    }
    const echo = tools.find((tool) => tool.name === "mcp__test__echo");
    expect(echo?.inputSchema).toMatchObject({
      properties: { text: { type: "string", description: "What to say back." } },
      required: ["text"],
    });
    expect(echo?.isReadOnly?.({})).toBe(true);
    expect(tools.find((tool) => tool.name === "mcp__test__add")?.isReadOnly).toBeUndefined();
    expect(connections.tools()).toBe(tools);
    const [status] = connections.status();
    expect(status).toMatchObject({ name: "test", state: "connected" });
    const echoStatus = status?.tools.find((tool) => tool.name === "mcp__test__echo");
    expect(echoStatus?.definitionBytes).toBe(
      Buffer.byteLength(
        JSON.stringify({
          name: echo?.name,
          description: echo?.description,
          input_schema: echo?.inputSchema,
        }),
      ),
    );
  });

  it("run through the loop: the model calls a tool and reads its result", async () => {
    const { connections } = await testServer();
    const { results, stop } = await runLoop(connections, [
      { content: [call("t1", "mcp__test__add", { a: 2, b: 3 })] },
      { content: [text("2 + 3 = 5")] },
    ]);
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "5", is_error: false },
    ]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "2 + 3 = 5" });
  });

  it("return a tool's error as an error result", async () => {
    const { connections } = await testServer();
    const { results } = await runLoop(connections, [
      { content: [call("t1", "mcp__test__fail")] },
      { content: [text("it failed")] },
    ]);
    expect(results[0]).toMatchObject({ content: "it failed on purpose", is_error: true });
  });

  it("describe audio, binary resources and an image that is not one in a line, and give text resources with their URI", async () => {
    const { connections } = await testServer();
    // The test server's "PNG" is 12,345 bytes of filler: it is named, not sent (docs/images.md).
    expect(await runTool(connections, "mcp__test__image")).toEqual({
      content:
        "a picture:\n[image 2 (image/png) is not sent: it is not a PNG, JPEG, GIF or WebP image]\n[audio: audio/wav, 300 bytes]",
      isError: false,
    });
    expect((await runTool(connections, "mcp__test__resource")).content).toBe(
      "[resource file:///notes.txt]\nthe notes\n[resource file:///data.bin: application/octet-stream, 2,048 bytes]",
    );
  });

  it("give structured content as JSON when a tool returns no text", async () => {
    const { connections } = await testServer();
    const output = await runTool(connections, "mcp__test__structured");
    expect(JSON.parse(output.content)).toEqual({ total: 2, items: ["a", "b"] });
  });

  it("cut a large output in the middle and save all of it to a file named in the result", async () => {
    const { connections } = await testServer();
    const output = await runTool(connections, "mcp__test__big", { chars: 200_000 });
    expect(output.isError).toBe(false);
    expect(output.content.length).toBeLessThan(50_300);
    expect(output.content).toMatch(/^line 1 x+\n/);
    const note = output.content.match(
      /\[\.\.\. output cut in the middle: 200,000 characters, [\d,]+ lines in all; saved in full to (\S+) \.\.\.\]/,
    );
    expect(note).not.toBeNull();
    const saved = readFileSync(note?.[1] as string, "utf8");
    expect(saved).toHaveLength(200_000);
    expect(output.content.endsWith(saved.slice(-1000).trimEnd())).toBe(true);
  });

  it("cancel a call that passes the time limit, and say so", async () => {
    const { connections, events } = await testServer({ callTimeoutMs: 300 });
    const started = Date.now();
    const output = await runTool(connections, "mcp__test__slow", { ms: 10_000 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(output).toEqual({
      content: "The MCP tool mcp__test__slow did not answer within 0.3 s; it was cancelled.",
      isError: true,
    });
    await vi.waitFor(() => expect(events()).toContain("slow cancelled"));
    // The server is still there for the next call.
    expect((await runTool(connections, "mcp__test__echo", { text: "still here" })).content).toBe(
      "still here",
    );
  });

  it("stop a call at once when the user interrupts, and tell the server to cancel it", async () => {
    const { connections, events } = await testServer();
    const interrupt = new AbortController();
    let interruptedAt = 0;
    const watcher = setInterval(() => {
      if (interruptedAt === 0 && events().includes("slow started")) {
        interruptedAt = Date.now();
        interrupt.abort();
      }
    }, 10);
    const { results, stop } = await runLoop(
      connections,
      [{ content: [call("t1", "mcp__test__slow", { ms: 20_000 })] }],
      interrupt.signal,
    ).finally(() => clearInterval(watcher));
    expect(Date.now() - interruptedAt).toBeLessThan(500);
    expect(stop.reason).toBe("interrupted");
    expect(results[0]).toMatchObject({
      content: 'Interrupted by the user; the MCP server "test" was asked to cancel the call.',
      is_error: true,
    });
    await vi.waitFor(() => expect(events()).toContain("slow cancelled"));
  });

  it("report a server that died during a call, and start it again for the next call", async () => {
    const { connections, notices } = await testServer();
    const { results } = await runLoop(connections, [
      { content: [call("t1", "mcp__test__crash")] },
      { content: [call("t2", "mcp__test__echo", { text: "back again" })] },
      { content: [text("done")] },
    ]);
    expect(results[0]).toMatchObject({
      content:
        'The MCP server "test" stopped during the call (it exited with code 3: crashing on purpose). It will be started again for the next call to one of its tools.',
      is_error: true,
    });
    expect(results[1]).toMatchObject({ content: "back again", is_error: false });
    expect(notices).toEqual([
      'MCP server "test" stopped (it exited with code 3: crashing on purpose); it will be started again at its next call.',
    ]);
    expect(connections.status()[0]?.state).toBe("connected");
  });

  it("offer a tool the server announced with list_changed from the next turn on", async () => {
    const { connections } = await testServer();
    const before = connections.tools();
    let offeredNext: string[] = [];
    const { results } = await runLoop(connections, [
      { content: [call("t1", "mcp__test__grow")] },
      (request) => {
        offeredNext = request.tools.map((tool) => tool.name);
        return { content: [call("t2", "mcp__test__grown_1")] };
      },
      { content: [text("done")] },
    ]);
    expect(before.map((tool) => tool.name)).not.toContain("mcp__test__grown_1");
    expect(offeredNext).toContain("mcp__test__grown_1");
    expect(results.map((result) => result.content)).toEqual(["added grown_1", "grown_1 ran"]);
    expect(connections.tools()).not.toBe(before);
  });

  it("start a server with a safe environment and its own, in a process group of its own", async () => {
    process.env.AGENTLOOP_TEST_SECRET_TOKEN = "not for servers";
    try {
      const { connections } = await testServer();
      const output = await runTool(connections, "mcp__test__environment");
      const { names, pid, group } = JSON.parse(output.content);
      expect(names).toEqual(expect.arrayContaining(["PATH", "MCP_TEST_EVENTS"]));
      expect(names).not.toContain("AGENTLOOP_TEST_SECRET_TOKEN");
      // The terminal's Ctrl-C goes to agentloop's group, not to the server's.
      expect(group).toBe(pid);
    } finally {
      delete process.env.AGENTLOOP_TEST_SECRET_TOKEN;
    }
  });

  it("stop every server at close(), with the processes it started", async () => {
    const { connections, tag } = await testServer();
    const [server] = processesRunning(tag);
    expect(server).toBeDefined();
    const output = await runTool(connections, "mcp__test__spawn");
    const [child, detached] = output.content.split(" ").map(Number) as [number, number];
    expect([isAlive(child), isAlive(detached)]).toEqual([true, true]);
    await connections.close();
    expect(processesRunning(tag)).toEqual([]);
    expect([isAlive(server as number), isAlive(child), isAlive(detached)]).toEqual([
      false,
      false,
      false,
    ]);
    expect(connections.tools()).toEqual([]);
  });
});

describe("servers that do not start", () => {
  it("are one notice each, and the session goes on with the others", async () => {
    const place = scratch();
    const { connections, notices } = await connect([
      entry("missing", { type: "stdio", command: "agentloop-no-such-mcp-server" }),
      entry("quits", {
        type: "stdio",
        command: process.execPath,
        args: ["-e", "console.error('MY_API_TOKEN is not set'); process.exit(2)"],
      }),
      entry("refusing", { type: "http", url: await refusingUrl() }),
      stdioServer("test", place.events),
    ]);
    expect(notices).toHaveLength(3);
    expect(notices[0]).toBe(
      'MCP server "missing" did not start: the command "agentloop-no-such-mcp-server" was not found',
    );
    expect(notices[1]).toBe(
      'MCP server "quits" did not start: it exited with code 2: MY_API_TOKEN is not set',
    );
    expect(notices[2]).toMatch(
      /^MCP server "refusing" did not start: the connection to http:\/\/127\.0\.0\.1:\d+\/mcp was refused$/,
    );
    expect(connections.status().map(({ name, state }) => `${name} ${state}`)).toEqual([
      "missing failed",
      "quits failed",
      "refusing failed",
      "test connected",
    ]);
    expect(connections.tools().every((tool) => tool.name.startsWith("mcp__test__"))).toBe(true);
    expect((await runTool(connections, "mcp__test__echo", { text: "hi" })).content).toBe("hi");
  });

  it("include one that does not answer within its time limit, which is then stopped", async () => {
    const tag = `silent${Math.random().toString(36).slice(2)}`;
    const started = Date.now();
    const { notices } = await connect(
      [
        entry("silent", {
          type: "stdio",
          command: process.execPath,
          args: ["-e", `/* ${tag} */ setInterval(() => {}, 1000)`],
        }),
      ],
      { startTimeoutMs: 500 },
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(notices).toEqual(['MCP server "silent" did not start: it did not answer within 0.5 s']);
    expect(processesRunning(tag)).toEqual([]);
  });
});

describe("MCP servers over Streamable HTTP", () => {
  async function httpServer() {
    const place = scratch();
    const server = await startHttpServer(place.events);
    cleanups.push(() => server.stop());
    return { server, events: place.read };
  }

  it("are called through the loop, with the configured headers", async () => {
    const { server, events } = await httpServer();
    const { connections, notices } = await connect([
      entry("web", { type: "http", url: server.url, headers: { "X-Test-Token": "token-123" } }),
    ]);
    expect(notices).toEqual([]);
    const { results } = await runLoop(connections, [
      { content: [call("t1", "mcp__web__echo", { text: "over http" })] },
      { content: [text("done")] },
    ]);
    expect(results[0]).toMatchObject({ content: "over http", is_error: false });
    expect(events()).toContain("header token-123");
    expect(events()).not.toContain("header (none)");
  });

  it("announce new tools with list_changed, on the event stream beside the calls", async () => {
    const { server } = await httpServer();
    const { connections } = await connect([entry("web", { type: "http", url: server.url })]);
    expect((await runTool(connections, "mcp__web__grow")).content).toBe("added grown_1");
    // Unlike stdio, the announcement is not ordered with the call's result.
    await vi.waitFor(() =>
      expect(connections.tools().map((tool) => tool.name)).toContain("mcp__web__grown_1"),
    );
    expect((await runTool(connections, "mcp__web__grown_1")).content).toBe("grown_1 ran");
  });

  it("give an error result, not a hang, when the server has gone away", async () => {
    const { server } = await httpServer();
    const { connections } = await connect([entry("web", { type: "http", url: server.url })], {
      callTimeoutMs: 5000,
    });
    await server.stop();
    const started = Date.now();
    const output = await runTool(connections, "mcp__web__echo", { text: "anyone?" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(output.isError).toBe(true);
    expect(output.content).toMatch(
      /^The MCP server "web" is not available: the connection to http:\/\/127\.0\.0\.1:\d+\/mcp was refused\.$/,
    );
  });

  it("open a new session when the server restarted and no longer knows the old one", async () => {
    const place = scratch();
    const first = await startHttpServer(place.events);
    const { connections, notices } = await connect([
      entry("web", { type: "http", url: first.url }),
    ]);
    await first.stop();
    const port = Number(new URL(first.url).port);
    const second = await startHttpServer(place.events, port);
    cleanups.push(() => second.stop());
    expect(await runTool(connections, "mcp__web__echo", { text: "new session" })).toEqual({
      content: "new session",
      isError: false,
    });
    expect(notices).toEqual([]);
  });
});
