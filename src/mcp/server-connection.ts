// One MCP server for the length of a session: started within its time limit, asked for its
// tools (again whenever it says they changed), called with a time limit and the user's abort
// signal, started again at the next call after it died, and stopped with everything it started.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ErrorCode,
  McpError,
  type Tool as McpToolDefinition,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AGENTLOOP_BUILD } from "../core/build-info.js";
import type { McpServerEntry } from "./config.js";
import { describeError, isConnectionFailure, notDelivered } from "./connection-errors.js";
import type { CallOutcome } from "./mcp-tool.js";
import { ProcessGroupStdioTransport } from "./stdio-transport.js";

const CLIENT_INFO = { name: "agentloop", version: AGENTLOOP_BUILD.version };
/** How long an HTTP server gets to end its session when we close. */
const TERMINATE_WAIT_MS = 1000;

export interface ServerConnectionOptions {
  startTimeoutMs: number;
  callTimeoutMs: number;
  /** Called when the tool list changed after the first start. */
  onToolsChanged: () => void;
  onNotice: (sentence: string) => void;
}

type Live = {
  client: Client;
  transport: ProcessGroupStdioTransport | StreamableHTTPClientTransport;
  /** Set once the connection is gone: why, in a few words. */
  stopped: string | null;
};

export class McpServerConnection {
  readonly name: string;
  readonly transport: "stdio" | "http";
  /** The tools it offered last. */
  tools: McpToolDefinition[] = [];
  /** Why the last start failed; null while it runs (or may be started again). */
  error: string | null = null;
  private live: Live | null = null;
  private restarting: Promise<Live | string> | null = null;
  private refreshing: Promise<void> = Promise.resolve();
  private listings = 0;
  private closed = false;

  constructor(
    private readonly entry: McpServerEntry,
    private readonly options: ServerConnectionOptions,
  ) {
    this.name = entry.name;
    this.transport = entry.config.type === "http" ? "http" : "stdio";
  }

  /** Starts the server and reads its tools; the error, in a few words, if that failed. */
  async start(): Promise<string | null> {
    const started = await this.connect();
    if (typeof started === "string") {
      this.error = started;
      return started;
    }
    this.live = started;
    this.error = null;
    return null;
  }

  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    return this.attempt(name, args, signal, false);
  }

  private async attempt(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    retried: boolean,
  ): Promise<CallOutcome> {
    if (signal.aborted) return { kind: "interrupted" };
    // A restart may take up to the start time limit: an interrupt does not wait for it.
    const live = await untilAborted(this.running(), signal);
    if (live === null || signal.aborted) return { kind: "interrupted" };
    if (typeof live === "string") return { kind: "unavailable", reason: live };
    try {
      // @step mcp.call: The call goes to the MCP server, with a time limit and the abort signal.
      const result = await live.client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.options.callTimeoutMs,
      });
      // A tool that announced new tools returns once they are listed: the next turn has them.
      await this.refreshing;
      return { kind: "result", result: result as Extract<typeof result, { content: unknown }> };
    } catch (error) {
      if (signal.aborted) return { kind: "interrupted" };
      if (live.stopped) return { kind: "server-stopped", reason: live.stopped };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return { kind: "timed-out" };
      }
      if (isConnectionFailure(error)) {
        live.stopped = describeError(error, this.entry);
        void this.closeLive(live);
        // The call did not reach the server (it refused the connection, or no longer knows
        // the session after a restart, when the spec asks for a new one): it can go again.
        if (notDelivered(error) && !retried) return this.attempt(name, args, signal, true);
        return { kind: "server-stopped", reason: live.stopped };
      }
      return { kind: "failed", message: describeError(error, this.entry) };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.restarting;
    if (this.live) await this.closeLive(this.live);
  }

  /** The live connection, started again first if the server died. */
  private async running(): Promise<Live | string> {
    if (this.live && !this.live.stopped) return this.live;
    if (this.closed) return "the session is ending";
    this.restarting ??= this.restart().finally(() => {
      this.restarting = null;
    });
    return this.restarting;
  }

  private async restart(): Promise<Live | string> {
    const before = JSON.stringify(this.tools);
    if (this.live) await this.closeLive(this.live);
    this.live = null;
    const started = await this.connect();
    if (typeof started === "string") {
      // Said once, not at every call that finds it still down.
      if (this.error !== started) {
        const again = this.entry.config.type === "http" ? "reached again" : "started again";
        this.options.onNotice(`MCP server "${this.name}" could not be ${again}: ${started}`);
      }
      this.error = started;
      return started;
    }
    this.live = started;
    this.error = null;
    if (JSON.stringify(this.tools) !== before) this.options.onToolsChanged();
    return started;
  }

  /** Connects and lists the tools within the start time limit, or says why not. */
  private async connect(): Promise<Live | string> {
    const transport = this.createTransport();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const live: Live = { client, transport, stopped: null };
    let ready = false;
    client.onclose = () => {
      if (live.stopped) return;
      const exit = transport instanceof ProcessGroupStdioTransport ? transport.exitReason() : null;
      live.stopped = exit ?? "the connection closed";
      if (ready && !this.closed) {
        this.options.onNotice(
          `MCP server "${this.name}" stopped (${live.stopped}); it will be started again at its next call.`,
        );
      }
    };
    // Errors the SDK reports on the side (a line that is not JSON, a lost event stream) do not
    // end the connection; those that matter reach the call they belong to.
    client.onerror = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.refreshing = this.refreshTools(live);
    });

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.startTimeoutMs);
    const limits = { signal: deadline.signal, timeout: this.options.startTimeoutMs };
    try {
      await client.connect(transport, limits);
      this.tools = await listTools(client, limits);
      ready = true;
      return live;
    } catch (error) {
      // Read before closing, which ends the server and would make every reason "killed".
      const exit = transport instanceof ProcessGroupStdioTransport ? transport.exitReason() : null;
      live.stopped ??= "it did not start";
      if (transport instanceof ProcessGroupStdioTransport) await transport.terminate();
      await this.closeLive(live);
      if (deadline.signal.aborted) {
        return `it did not answer within ${this.options.startTimeoutMs / 1000} s`;
      }
      return exit ?? describeError(error, this.entry);
    } finally {
      clearTimeout(timer);
    }
  }

  private createTransport(): ProcessGroupStdioTransport | StreamableHTTPClientTransport {
    const { config } = this.entry;
    if (config.type === "http") {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
      });
    }
    return new ProcessGroupStdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: config.env ?? {},
      cwd: config.cwd,
    });
  }

  private async refreshTools(live: Live): Promise<void> {
    const listing = ++this.listings;
    try {
      const tools = await listTools(live.client, { timeout: this.options.startTimeoutMs });
      // Only the newest listing counts, and only while this connection is the current one.
      if (listing !== this.listings || live !== this.live) return;
      this.tools = tools;
      this.options.onToolsChanged();
    } catch (error) {
      if (live.stopped || this.closed) return;
      const reason = describeError(error, this.entry);
      this.options.onNotice(
        `MCP server "${this.name}" changed its tools, but listing them failed: ${reason}`,
      );
    }
  }

  private async closeLive(live: Live): Promise<void> {
    live.stopped ??= "it was stopped";
    const { transport } = live;
    if (transport instanceof StreamableHTTPClientTransport) {
      // Ask the server to end the session, as the spec asks; it may be gone already.
      const ended = transport.terminateSession().catch(() => {});
      await Promise.race([ended, sleep(TERMINATE_WAIT_MS)]);
    }
    await live.client.close().catch(() => {});
    // The client closes nothing if it never connected: close the transport ourselves.
    await transport.close().catch(() => {});
  }
}

/** Every page of the server's tool list. */
async function listTools(
  client: Client,
  limits: { signal?: AbortSignal; timeout: number },
): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, limits);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** The promise's value, or null as soon as the signal is aborted. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
