// `agentloop acp`: an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains IDEs,
// Neovim, Emacs). stdout carries JSON-RPC alone; everything else is a log line on stderr. The
// command line's flags (--model, --permission-mode, ...) are the defaults of every session.
// Protocol: https://agentclientprotocol.com/protocol/v1/overview ; SDK: @agentclientprotocol/sdk

import { isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { SessionOptions } from "../assembly/session-options.js";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { log } from "./acp-io.js";
import { type AcpSession, startAcpSession } from "./acp-session.js";
import { clientMcpFiles, removeClientMcpFiles } from "./client-mcp.js";
import { MODEL_OPTION } from "./config-options.js";
import { listAcpSessions } from "./session-list.js";

/**
 * `session/set_model`, the model picker of ACP's unstable schema before config options; the
 * SDK no longer names it, and clients written then (acpx) still send it.
 */
const setModelParams = (params: unknown) => {
  const { sessionId, modelId } = (params ?? {}) as { sessionId?: unknown; modelId?: unknown };
  if (typeof sessionId !== "string" || typeof modelId !== "string") {
    throw acp.RequestError.invalidParams(
      undefined,
      "session/set_model needs a sessionId and a modelId.",
    );
  }
  return { sessionId, modelId };
};

export async function runAcpCommand(options: SessionOptions, version: string): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  const find = (sessionId: string) => {
    const found = sessions.get(sessionId);
    if (!found) throw acp.RequestError.sessionNotFound(sessionId);
    return found;
  };
  /** The session a request names, assembled for its cwd with the editor's MCP servers. */
  const start = async (
    client: acp.AgentContext,
    request: { cwd: string; mcpServers: acp.McpServer[] },
    resume?: string,
  ) => {
    if (!isAbsolute(request.cwd)) {
      throw acp.RequestError.invalidParams(
        undefined,
        `cwd must be an absolute path, got "${request.cwd}".`,
      );
    }
    const editorFiles = clientMcpFiles(request.mcpServers, log);
    const session = await startAcpSession(client, {
      ...options,
      cwd: request.cwd,
      mcpConfigFiles: [...options.mcpConfigFiles, ...editorFiles],
      resume: resume ? { id: resume } : undefined,
    })
      .catch((error: unknown) => {
        if (error instanceof ConfigError) {
          throw acp.RequestError.invalidParams(undefined, error.message);
        }
        throw error;
      })
      .finally(() => removeClientMcpFiles(editorFiles));
    sessions.set(session.id, session);
    return session;
  };

  const app = acp
    .agent({ name: "agentloop" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {} },
      },
      // The model's key comes from the environment, as it does on the command line.
      authMethods: [],
      agentInfo: { name: "agentloop", title: "agentloop", version },
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const session = await start(client, params);
      setImmediate(() => void session.announceCommands());
      return {
        sessionId: session.id,
        modes: session.modes(),
        configOptions: await session.configOptions(),
      };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      if (sessions.has(params.sessionId)) {
        throw acp.RequestError.invalidParams(
          undefined,
          `Session ${params.sessionId} is already open.`,
        );
      }
      const session = await start(client, params, params.sessionId);
      await session.replay();
      setImmediate(() => void session.announceCommands());
      return { modes: session.modes(), configOptions: await session.configOptions() };
    })
    .onRequest(acp.methods.agent.session.list, ({ params }) => listAcpSessions(params))
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => ({
      configOptions: await find(params.sessionId).setConfigOption(params.configId, params.value),
    }))
    .onRequest("session/set_model", setModelParams, async ({ params }) => {
      await find(params.sessionId).setConfigOption(MODEL_OPTION, params.modelId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await find(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => ({
      stopReason: await find(params.sessionId).prompt(params.prompt),
    }))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  log(`ACP agent ${version} ready on stdio.`);
  await connection.closed;
  for (const session of sessions.values()) {
    session.cancel();
    await session.close();
  }
  return EXIT.done;
}
