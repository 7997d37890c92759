// An MCP server for tests, written as plain JavaScript so that it starts with `node` alone.
// Over stdio by default; with --http it serves Streamable HTTP on 127.0.0.1 at a free port (or
// at --port=N) and prints "listening URL" on stdout. Its tools exercise what a client must handle: results of
// every kind, errors, slowness and cancellation, size, a crash, a tool list that grows, and
// processes left running. What happens to it (cancellations, request headers) is appended to
// the file named by $MCP_TEST_EVENTS, one line each, for the tests to read.

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function record(line) {
  if (process.env.MCP_TEST_EVENTS) appendFileSync(process.env.MCP_TEST_EVENTS, `${line}\n`);
}

const text = (value) => ({ content: [{ type: "text", text: value }] });

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

function createTestServer() {
  const server = new McpServer({ name: "agentloop-test", version: "1.0.0" });
  let grown = 0;

  server.registerTool(
    "echo",
    {
      description: "Returns the text it is given.",
      inputSchema: { text: z.string().describe("What to say back.") },
      annotations: { readOnlyHint: true },
    },
    async ({ text: value }) => text(value),
  );
  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)),
  );
  server.registerTool("fail", { description: "Always fails." }, async () => ({
    content: [{ type: "text", text: "it failed on purpose" }],
    isError: true,
  }));
  server.registerTool(
    "slow",
    { description: "Waits, then answers.", inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      record("slow started");
      const finished = await sleep(ms, extra.signal);
      if (!finished) record("slow cancelled");
      return text(`waited ${ms} ms`);
    },
  );
  server.registerTool(
    "big",
    { description: "Returns that many characters.", inputSchema: { chars: z.number() } },
    async ({ chars }) => {
      let out = "";
      for (let line = 1; out.length < chars; line++) out += `line ${line} ${"x".repeat(60)}\n`;
      return text(out.slice(0, chars));
    },
  );
  server.registerTool("image", { description: "Returns a picture and a sound." }, async () => ({
    content: [
      { type: "text", text: "a picture:" },
      { type: "image", data: Buffer.alloc(12_345, 1).toString("base64"), mimeType: "image/png" },
      { type: "audio", data: Buffer.alloc(300, 2).toString("base64"), mimeType: "audio/wav" },
    ],
  }));
  server.registerTool("resource", { description: "Returns two embedded resources." }, async () => ({
    content: [
      { type: "resource", resource: { uri: "file:///notes.txt", text: "the notes" } },
      {
        type: "resource",
        resource: {
          uri: "file:///data.bin",
          mimeType: "application/octet-stream",
          blob: Buffer.alloc(2048).toString("base64"),
        },
      },
    ],
  }));
  server.registerTool(
    "structured",
    {
      description: "Returns structured content only.",
      outputSchema: { total: z.number(), items: z.array(z.string()) },
    },
    async () => ({ content: [], structuredContent: { total: 2, items: ["a", "b"] } }),
  );
  server.registerTool("crash", { description: "Exits in the middle of the call." }, async () => {
    process.stderr.write("crashing on purpose\n");
    process.exit(3);
  });
  server.registerTool("grow", { description: "Adds a tool." }, async () => {
    grown += 1;
    const name = `grown_${grown}`;
    // Registering a tool on a connected server announces it with notifications/tools/list_changed.
    server.registerTool(name, { description: "A tool added later." }, async () =>
      text(`${name} ran`),
    );
    return text(`added ${name}`);
  });
  server.registerTool(
    "environment",
    { description: "Names the environment variables it was given, and its process group." },
    async () => {
      const stat = readFileSync("/proc/self/stat", "latin1");
      const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      return text(
        JSON.stringify({ names: Object.keys(process.env).sort(), pid: process.pid, group }),
      );
    },
  );
  server.registerTool(
    "spawn",
    {
      description:
        "Starts processes that outlive the call: a child, and one in a session of its own.",
    },
    async () => {
      const child = spawn("sleep", ["300"], { stdio: "ignore" });
      const detached = spawn("sleep", ["301"], { stdio: "ignore", detached: true });
      child.unref();
      detached.unref();
      return text(`${child.pid} ${detached.pid}`);
    },
  );
  return server;
}

async function serveHttp() {
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    record(`header ${request.headers["x-test-token"] ?? "(none)"}`);
    const id = request.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (id !== undefined && transport === undefined) {
      response.writeHead(404).end("unknown session");
      return;
    }
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await createTestServer().connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice(7) ?? 0);
  http.listen(port, "127.0.0.1", () => {
    process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}

if (process.argv.includes("--http")) await serveHttp();
else await createTestServer().connect(new StdioServerTransport());
