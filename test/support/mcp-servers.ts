// Starting the test MCP server (test/support/mcp-test-server.mjs) the ways the tests need: as
// a server entry for stdio, as a running Streamable HTTP server, and with a file that records
// what happened to it.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { McpServerConfig, McpServerEntry } from "../../src/mcp/config.js";
import { isAlive } from "./processes.js";

export const TEST_SERVER = join(import.meta.dirname, "mcp-test-server.mjs");

export function entry(name: string, config: McpServerConfig): McpServerEntry {
  return { name, config, source: "flag", file: "/test/mcp.json" };
}

/** A fresh directory, and the events file of a test server that lives in it. */
export function scratch(): { directory: string; events: string; read(): string[] } {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-mcp-"));
  const events = join(directory, "events.log");
  const read = () => {
    try {
      return readFileSync(events, "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };
  return { directory, events, read };
}

/**
 * The test server over stdio. `tag` is an argument it ignores, there to find its process by
 * its command line.
 */
export function stdioServer(name: string, events: string, tag = "untagged"): McpServerEntry {
  return entry(name, {
    type: "stdio",
    command: process.execPath,
    args: [TEST_SERVER, `--tag=${tag}`],
    env: { MCP_TEST_EVENTS: events },
  });
}

export interface HttpTestServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The test server over Streamable HTTP, once it listens. */
export async function startHttpServer(events: string, port = 0): Promise<HttpTestServer> {
  const child = spawn(process.execPath, [TEST_SERVER, "--http", `--port=${port}`], {
    env: { ...process.env, MCP_TEST_EVENTS: events },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve(line.replace(/^listening /, "")));
    child.once("exit", (code) => reject(new Error(`the HTTP test server exited with ${code}`)));
  });
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** A URL at which nothing listens: a port that was free a moment ago. */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/mcp`;
}

/** PIDs of live processes whose command line mentions `text`. */
export function processesRunning(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      if (commandLine.includes(text) && isAlive(Number(name))) found.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
