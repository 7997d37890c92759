// Talks to an MCP server over its stdin and stdout, like the SDK's StdioClientTransport, but
// starts the server the way src/tools/shell-process.ts starts commands: in a process group and
// session of its own, so the Ctrl-C that the terminal sends to agentloop's group does not
// reach it and it cannot read the terminal; tagged with a marker variable, so that whatever
// it started is found and ended with it; and with its stderr kept (the last lines, for error
// messages) instead of printed over the conversation.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JOB_MARKER_VARIABLE, KILL_GRACE_MS, killProcesses } from "../tools/process-tree.js";

export interface StdioServerParameters {
  command: string;
  args: string[];
  /** Set over the safe default environment (see serverEnvironment). */
  env: Record<string, string>;
  cwd?: string;
}

/** Variables a server gets besides its own: the SDK's list (HOME, PATH, USER, ...) and these. */
const INHERITED_TOO = ["LANG", "LC_ALL", "LC_CTYPE", "TMPDIR"];
/** How long a server gets to exit by itself once its stdin is closed, as the MCP spec asks. */
const CLOSE_WAIT_MS = 1000;
/** How long to wait for the exit of a server we could not write to. */
const EXIT_AFTER_WRITE_ERROR_MS = 500;
/** How long messages may still arrive after the process exits. */
const DRAIN_MS = 100;
/** The largest message read (the SDK's default is 10 MiB); the tool result is cut anyway. */
const MAX_MESSAGE_BYTES = 64 * 2 ** 20;
/** Characters of stderr kept for error messages. */
const STDERR_KEPT = 8192;

export function serverEnvironment(own: Record<string, string>): Record<string, string> {
  const env = getDefaultEnvironment();
  for (const name of INHERITED_TOO) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...own };
}

/** The server cannot be written to: it has exited (the message says how) or never ran. */
export class ServerGoneError extends Error {}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private readonly marker = `mcp-${randomBytes(6).toString("hex")}`;
  private stderr = "";
  /** Why we ended the server, when it did not end by itself. */
  private problem: string | null = null;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private finished = false;
  private closing: Promise<void> | null = null;
  // Declared before `exited`, whose executor sets it: fields are initialised in order.
  private reportExit = () => {};
  /** Settles when the server has exited. */
  private readonly exited = new Promise<void>((resolve) => {
    this.reportExit = resolve;
  });
  /** Cuts short the wait for the server to exit by itself. */
  private hurry = () => {};

  constructor(private readonly server: StdioServerParameters) {}

  start(): Promise<void> {
    const { command, args, cwd } = this.server;
    const env = { ...serverEnvironment(this.server.env), [JOB_MARKER_VARIABLE]: this.marker };
    return new Promise((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(command, args, { cwd, env, detached: true, stdio: "pipe" });
      } catch (error) {
        // Arguments Node refuses outright, such as one containing a NUL character.
        return reject(error);
      }
      this.child = child;
      let spawned = false;
      child.on("error", (error) => {
        if (spawned) return this.onerror?.(error);
        // It never ran: there is nothing to wait for at close.
        this.child = null;
        reject(new Error(spawnFailure(error as NodeJS.ErrnoException, this.server)));
        this.finish();
      });
      child.once("spawn", () => {
        spawned = true;
        resolve();
      });
      child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr.on("data", (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
      });
      // Writing to a server that has died: its exit is reported through onclose.
      child.stdin.on("error", () => {});
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        this.reportExit();
        // Not "close": a process the server started may hold its stdout open for ever.
        setTimeout(() => this.finish(), DRAIN_MS).unref();
      });
      child.once("close", () => this.finish());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.exit || this.finished) {
      return Promise.reject(new ServerGoneError(this.exitReason() ?? "the server is not running"));
    }
    return new Promise((resolve, reject) => {
      child.stdin.write(serializeMessage(message), async (error) => {
        if (!error) return resolve();
        // A write fails (EPIPE) when the server has died, usually just before its exit is
        // reported: wait for that, which says why.
        await Promise.race([this.exited, sleep(EXIT_AFTER_WRITE_ERROR_MS)]);
        reject(new ServerGoneError(this.exitReason() ?? error.message));
      });
    });
  }

  /** Closes stdin, waits a moment for the server to exit, then ends it and all it started. */
  close(): Promise<void> {
    this.closing ??= this.stop(CLOSE_WAIT_MS);
    return this.closing;
  }

  /** Ends the server and all it started without waiting for it: it has stopped answering. */
  terminate(): Promise<void> {
    this.hurry();
    this.closing ??= this.stop(0);
    return this.closing;
  }

  /** Why the server is gone, in a few words ("it exited with code 1: Error: no token"); null while it runs. */
  exitReason(): string | null {
    if (this.problem) return this.problem;
    const exit = this.exit;
    if (!exit) return null;
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const line = telling(this.stderr);
    return line ? `it ${how}: ${line}` : `it ${how}`;
  }

  private async stop(waitMs: number): Promise<void> {
    const child = this.child;
    if (child && !this.exit && waitMs > 0) {
      child.stdin.end();
      const hurried = new Promise<void>((resolve) => {
        this.hurry = resolve;
      });
      await Promise.race([this.exited, hurried, sleep(waitMs)]);
    }
    // The group only while its leader lives: once a group is empty its number may be reused.
    const groups = child?.pid !== undefined && !this.exit ? [child.pid] : [];
    await killProcesses({ groups, markers: [this.marker] }, KILL_GRACE_MS);
    this.finish();
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch {
      this.problem = `it sent a message over ${MAX_MESSAGE_BYTES / 2 ** 20} MiB`;
      void this.close();
      return;
    }
    while (true) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server printing its banner to stdout): skip it.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.buffer.clear();
    this.onclose?.();
  }
}

function spawnFailure(error: NodeJS.ErrnoException, server: StdioServerParameters): string {
  if (error.code === "ENOENT" && server.cwd !== undefined && !isDirectory(server.cwd)) {
    return `its working directory ${server.cwd} does not exist`;
  }
  if (error.code === "ENOENT") return `the command "${server.command}" was not found`;
  if (error.code === "EACCES") return `the command "${server.command}" is not executable`;
  return error.message;
}

/**
 * The line of stderr that says most about a failure: the last one, skipping stack frames and
 * the Node.js version line that end an uncaught exception's report.
 */
function telling(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^at /.test(line) && !/^Node\.js v\d/.test(line));
  return (lines.at(-1) ?? "").slice(0, 300);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
