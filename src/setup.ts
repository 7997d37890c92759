// Builds a ready-to-run session from the command line: which model, which tools under which
// permission mode, and which session file (new or resumed).

import { join } from "node:path";
import type { Interface } from "node:readline";
import { type AgentSession, createAgentSession } from "./agent-session.js";
import { createCompaction } from "./compaction/compaction.js";
import { chooseCompaction, contextWindowOf } from "./compaction/settings.js";
import type { RunOptions } from "./config.js";
import { readDotenv } from "./dotenv.js";
import { ConfigError } from "./errors.js";
import { defaultPermissionMode, parsePermissionMode } from "./permissions.js";
import { type ResolvedProvider, resolveProvider } from "./providers/presets.js";
import type { Provider } from "./providers/provider.js";
import { findSessionToResume } from "./resume.js";
import {
  newSessionId,
  openSessionWriter,
  SESSION_FORMAT_VERSION,
  sessionsDirectory,
} from "./session.js";
import { createSessionTools } from "./session-tools.js";
import { buildSystemPrompt } from "./system-prompt.js";

/** Room kept for the reply when the provider sets no output limit of its own. */
const DEFAULT_OUTPUT_RESERVE = 8192;

export interface StartedSession {
  session: AgentSession;
  sessionPath: string;
  /** Things the user should know before the run starts (repairs, warnings). */
  notices: string[];
}

export async function startSession(
  options: RunOptions,
  io: { readline: Interface | undefined },
): Promise<StartedSession> {
  const notices: string[] = [];
  // The real environment wins over .env, which configures agentloop only and is never
  // passed on to the commands it runs. Where settings, approvals and sessions live comes from
  // the real environment alone: a repository's .env must not point agentloop at files it wrote.
  const env = { ...readDotenv(join(options.cwd, ".env")), ...process.env };
  const userEnv = process.env;
  const resolved = resolveProvider({
    provider: options.provider,
    model: options.model,
    baseURL: options.baseURL,
    env,
  });
  if (resolved instanceof ConfigError) throw resolved;

  const directory = sessionsDirectory(userEnv);
  const resumed = options.resume
    ? findSessionToResume(directory, options.cwd, options.resume)
    : undefined;
  for (const problem of resumed?.problems ?? []) {
    notices.push(`session file line ${problem.line} skipped: ${problem.reason}.`);
  }
  const writer = openSessionWriter(
    directory,
    resumed?.header ?? {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: newSessionId(),
      cwd: options.cwd,
      model: resolved.model,
      provider: resolved.preset,
      startedAt: new Date().toISOString(),
    },
    { resume: resumed !== undefined },
  );
  for (const message of resumed?.added ?? []) writer.recordMessage(message);

  const interactive = io.readline !== undefined;
  const mode = options.permissionMode
    ? parsePermissionMode(options.permissionMode)
    : defaultPermissionMode({ interactive });
  if (mode === "yolo") {
    notices.push(
      "permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.",
    );
  }
  // Tools first: the sandbox's trial run starts at once and goes on while the SDKs load.
  const [tools, model, compaction] = await Promise.allSettled([
    createSessionTools({
      options,
      mode,
      env,
      userEnv,
      stateDirectory: join(directory, ".."),
      readline: io.readline,
      keyVariable: resolved.apiKeyEnv,
      onNotice: (sentence) => notices.push(sentence),
    }),
    startProvider(resolved, { env, cwd: options.cwd }, (description) => {
      writer.recordRepair(description);
      if (io.readline) process.stderr.write(`agentloop: repaired the history: ${description}\n`);
    }),
    chooseCompaction({
      contextWindow: options.contextWindow,
      autoCompact: options.autoCompact,
      workspace: options.cwd,
      env: userEnv,
    }),
  ]);
  if (model.status === "rejected" || compaction.status === "rejected") {
    if (tools.status === "fulfilled") await tools.value.dispose();
    throw model.status === "rejected" ? model.reason : (compaction as PromiseRejectedResult).reason;
  }
  if (tools.status === "rejected") throw tools.reason;
  const provider = model.value;
  const toolbox = tools.value;
  const contextWindow = contextWindowOf(compaction.value, provider);
  if (provider.device) {
    const tokens = contextWindow.toLocaleString("en-US");
    notices.push(`local model ${provider.model} on ${provider.device}, context ${tokens} tokens.`);
  }
  const session = createAgentSession({
    provider,
    toolbox,
    system: buildSystemPrompt(options.cwd),
    maxTurns: options.maxTurns,
    maxCostUsd: options.maxCost,
    writer,
    messages: resumed?.messages,
    compaction: createCompaction({
      contextWindow,
      auto: compaction.value.auto,
      outputReserve: provider.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE,
      resultsDirectory: join(directory, writer.id, "tool-results"),
    }),
  });
  return { session, sessionPath: writer.path, notices };
}

/**
 * The provider a resolved configuration names. Its SDK (or the local model engine) loads while
 * the rest of start-up goes on; a local model is found or downloaded, then loaded.
 */
async function startProvider(
  resolved: ResolvedProvider,
  where: { env: NodeJS.ProcessEnv; cwd: string },
  onRepair: (description: string) => void,
): Promise<Provider & { device?: string; contextWindow?: number }> {
  if (resolved.protocol === "local") {
    const { startLocalProvider } = await import("./providers/local-start.js");
    const progress = process.stderr;
    return startLocalProvider({ reference: resolved.model, ...where, progress, onRepair });
  }
  const { createProvider } = await import("./providers/create-provider.js");
  return createProvider(resolved, { onRepair });
}
