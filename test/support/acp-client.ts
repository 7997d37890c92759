// An editor for the tests: `agentloop acp` (dist/cli.js) as a real child process, driven over
// its stdio pipes by the ACP SDK's client side. It keeps every update per session, answers
// permission requests as the test says, and keeps stdout's raw lines to check that they are
// JSON-RPC and nothing else.

import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { onTestFinished } from "vitest";
import { CLI, type FakeModel, type Sandbox } from "./cli-harness.js";

export type PermissionAnswerer = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

export interface Editor {
  agent: acp.ClientContext;
  child: ChildProcess;
  /** Every update received, in order, per session id. */
  updates(sessionId: string): acp.SessionUpdate[];
  /** Every permission request received, in order. */
  permissionRequests: acp.RequestPermissionRequest[];
  /** How the next permission requests are answered (default: allow once). */
  answerPermissions(answerer: PermissionAnswerer): void;
  /** stdout as it came, line by line. */
  stdoutLines(): string[];
  stderr(): string;
  /** Ends stdin, as an editor closing does, and waits for the exit code. */
  close(): Promise<number | null>;
}

export const chosen = (optionId: string): acp.RequestPermissionResponse => ({
  outcome: { outcome: "selected", optionId },
});

export function openEditor(options: {
  env: Record<string, string>;
  cwd: string;
  args?: string[];
}): Editor {
  const child = spawn(process.execPath, [CLI, "acp", ...(options.args ?? [])], {
    env: options.env,
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const bySession = new Map<string, acp.SessionUpdate[]>();
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  let answerer: PermissionAnswerer = async () => chosen("allow_once");

  const app = acp
    .client({ name: "agentloop-tests" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      permissionRequests.push(params);
      return answerer(params, signal);
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const list = bySession.get(params.sessionId) ?? [];
      list.push(params.update);
      bySession.set(params.sessionId, list);
    });
  const connection = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  return {
    agent: connection.agent,
    child,
    updates: (sessionId) => bySession.get(sessionId) ?? [],
    permissionRequests,
    answerPermissions(next) {
      answerer = next;
    },
    stdoutLines: () => stdout.split("\n").filter(Boolean),
    stderr: () => stderr,
    async close() {
      child.stdin.end();
      const code = await exited;
      connection.close();
      return code;
    },
  };
}

/**
 * An editor started in the sandbox's home, as an editor starts the agent (the session's cwd
 * comes with session/new), on the fake model, closed when the test ends if still open.
 */
export function openTestEditor(sandbox: Sandbox, model: FakeModel, args: string[] = []): Editor {
  const editor = openEditor({ env: { ...sandbox.env, ...model.env() }, cwd: sandbox.home, args });
  onTestFinished(async () => {
    if (editor.child.exitCode === null) await editor.close();
  });
  return editor;
}

/** Initializes the connection as an editor does, offering no file system and no terminal. */
export function initialize(editor: Editor): Promise<acp.InitializeResponse> {
  return editor.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
}

/** The text of the chunks of one kind, joined. */
export function chunkText(
  updates: readonly acp.SessionUpdate[],
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
): string {
  return updates
    .flatMap((update) =>
      update.sessionUpdate === kind && update.content.type === "text" ? [update.content.text] : [],
    )
    .join("");
}
