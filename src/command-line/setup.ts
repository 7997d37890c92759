// Builds a ready-to-run session from the command line: which model, which tools under which
// permission mode, and which session file (new or resumed).

import { join } from "node:path";
import type { Interface } from "node:readline";
import { createSubagentChannel } from "../agents/channel.js";
import { createBackgroundTasks } from "../background/tasks.js";
import { createCompaction } from "../compaction/compaction.js";
import { chooseCompaction, contextWindowOf } from "../compaction/settings.js";
import { readDotenv } from "../core/dotenv.js";
import { ConfigError } from "../core/errors.js";
import type { Message } from "../core/messages.js";
import { stateDirectory } from "../core/state-directory.js";
import type { TodoItem } from "../core/todo-item.js";
import { count } from "../core/wording.js";
import { type PreparedHooks, prepareHooks } from "../hooks/prepare.js";
import {
  defaultPermissionMode,
  loadPermissionRules,
  type PermissionMode,
  type PermissionRules,
  parsePermissionMode,
} from "../permissions/policy.js";
import { createRedactor, secretValues } from "../permissions/secrets.js";
import { createPlanMode } from "../planning/plan-mode.js";
import { createTodoList } from "../planning/todo-list.js";
import { todosRestated } from "../planning/todos.js";
import { chooseApi } from "../providers/api-setting.js";
import { withImageRepair } from "../providers/image-repair.js";
import { assumedFactsNotice, modelFacts } from "../providers/model-table.js";
import { type ResolvedProvider, resolveProvider } from "../providers/presets.js";
import type { Provider } from "../providers/provider.js";
import {
  anthropicOptions,
  type ModelSettings,
  openAIOptions,
  type ProviderHooks,
} from "../providers/provider-options.js";
import { chooseThinking } from "../providers/thinking-options.js";
import { type AgentSession, createAgentSession } from "../session/agent-session.js";
import { findSessionToResume } from "../session/resume.js";
import {
  newSessionId,
  openSessionWriter,
  SESSION_FORMAT_VERSION,
  type SessionWriter,
  sessionsDirectory,
} from "../session/session-file.js";
import { buildSystemPrompt, type SessionFacts } from "../session/system-prompt.js";
import { catalogBudget, catalogSection } from "../skills/catalog.js";
import { findSkills } from "../skills/find-skills.js";
import { createLoadedSkills, type LoadedSkills } from "../skills/loaded-skills.js";
import { homeOf } from "../skills/places.js";
import { readProjectMemory } from "../skills/project-memory.js";
import type { SkillCatalog } from "../skills/skill.js";
import { skillsInHistory } from "../skills/skills-in-history.js";
import { terminalHooksAsk } from "../terminal/mcp-ask.js";
import { writeWrapped } from "../terminal/wrap.js";
import type { RunOptions } from "./config.js";
import { createSessionTools } from "./session-tools.js";

/** Room kept for the reply when the provider sets no output limit of its own. */
const DEFAULT_OUTPUT_RESERVE = 8192;
/**
 * What the loaded skills may take beside a compaction's summary, in tokens: Claude Code's
 * 25,000 in all and 5,000 each, and no more than a tenth of a small model's window.
 */
const RESTATED_SKILLS_TOKENS = { total: 25_000, each: 5_000, windowShare: 0.1 };

export interface StartedSession {
  session: AgentSession;
  sessionPath: string;
  /** Things the user should know before the run starts (repairs, warnings). */
  notices: string[];
  controls: SessionControls;
}

/** What the REPL's commands show and change beyond the session itself. */
export interface SessionControls {
  /** The provider preset the model runs on: anthropic, openai, ollama, local, ... */
  readonly provider: string;
  /** The permission mode now: /plan and the approval of a plan change it. */
  readonly mode: PermissionMode;
  /** Goes on in `mode` from the next tool call; throws a ConfigError when it cannot start here. */
  switchMode(mode: PermissionMode): Promise<void>;
  /** The file plan mode writes the plan to. */
  planFile(): string;
  /** The allow, ask and deny rules of the settings files, read again now. */
  permissionRules(): Promise<PermissionRules>;
  /** The skills and custom commands found at start-up (/skills, /help, `/name args`). */
  readonly skills: SkillCatalog;
  /** The skills loaded so far: a `/name` the user types counts too. */
  readonly loadedSkills: LoadedSkills;
  /** The hooks in force and the project's skipped ones, as read at start (the REPL's /hooks). */
  readonly hooks: Pick<PreparedHooks, "running" | "skipped">;
  /** Goes on in a new session file, or in session `id` resumed as --resume does. */
  switchSession(id: string | undefined): { sessionPath: string; notices: string[] };
  /** The following requests go to model `name` of the same provider, made as at start-up. */
  switchModel(name: string): Promise<void>;
}

export async function startSession(
  options: RunOptions,
  io: { readline: Interface | undefined; holdProgress?: () => () => void },
): Promise<StartedSession> {
  const notices: string[] = [];
  // The real environment wins over .env, which configures agentloop only and is never
  // passed on to the commands it runs. Where settings, approvals and sessions live comes from
  // the real environment alone: a repository's .env must not point agentloop at files it wrote.
  const env = { ...readDotenv(join(options.cwd, ".env")), ...process.env };
  const userEnv = process.env;
  const api = await chooseApi({ flag: options.api, workspace: options.cwd, env: userEnv });
  const resolved = resolveProvider({
    provider: options.provider,
    model: options.model,
    baseURL: options.baseURL,
    api,
    env,
  });
  if (resolved instanceof ConfigError) throw resolved;
  /** Another model of the same provider (the REPL's /model, an agent definition's model). */
  const resolveModel = (name: string) => {
    const next = resolveProvider({
      provider: resolved.preset,
      model: name,
      baseURL: options.baseURL,
      api,
      env,
    });
    if (next instanceof ConfigError) throw next;
    return next;
  };

  const directory = sessionsDirectory(userEnv);
  const file = openSessionFile(directory, options.cwd, resolved, options.resume);
  notices.push(...file.notices);
  // The plan goes on with the session: a resumed one's last todo_write list.
  const todos = createTodoList(file.todos);
  // Beside the session file, in the directory of the session that started them.
  const tasks = createBackgroundTasks({
    outputDirectory: join(directory, file.writer.id, "tasks"),
    redact: createRedactor(secretValues(env)),
  });
  // Knowledge by files: read from the real environment only, as the settings are.
  const skills = findSkills({ cwd: options.cwd, env: userEnv });
  const loadedSkills = createLoadedSkills(skillsInHistory(file.messages));
  const memory = readProjectMemory({ cwd: options.cwd, env: userEnv });
  notices.push(...skills.skipped, ...memory.problems);
  // The file repairs are recorded in: the REPL's /clear and /resume change it.
  let writer = file.writer;
  const onRepair = (description: string) => {
    writer.recordRepair(description);
    if (io.readline)
      writeWrapped(process.stderr, `agentloop: repaired the history: ${description}`);
  };
  const onNotice = (sentence: string) => {
    const resume = io.holdProgress?.();
    writeWrapped(process.stderr, `agentloop: ${sentence}`);
    resume?.();
  };
  const hooks: ProviderHooks = { onRepair, onNotice };
  const where = { env, cwd: options.cwd };

  const interactive = io.readline !== undefined;
  // A session left in plan mode goes on in it, unless the command line names a mode.
  const mode = options.permissionMode
    ? parsePermissionMode(options.permissionMode)
    : file.mode === "plan"
      ? "plan"
      : defaultPermissionMode({ interactive });
  // The plan lives beside the session's other files, outside the workspace it must not change.
  const plan = createPlanMode({ file: () => join(directory, writer.id, "plan.md") });
  recordPlanMode(writer, mode, file.mode);
  if (mode === "yolo") {
    notices.push(
      "permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.",
    );
  }
  // Before the tools: a project's hooks may need a question answered, and the toolbox runs them.
  // The mode the hooks are told: the starting one, until the tools, which keep it, have started.
  let modeNow = () => mode;
  const userHooks = await prepareHooks({
    workspace: options.cwd,
    env: userEnv,
    permissionMode: () => modeNow(),
    session: () => ({ id: writer.id, transcriptPath: writer.path }),
    ask: io.readline && mode === "ask" ? terminalHooksAsk(io.readline) : undefined,
    onNotice: (sentence) => notices.push(sentence),
    onRunNotice: (sentence) => onNotice(sentence),
  });
  const thinkingChoice = chooseThinking({
    effort: options.effort,
    thinking: options.thinking,
    showThinking: interactive,
    workspace: options.cwd,
    env: userEnv,
  });
  const compactionChoice = chooseCompaction({
    contextWindow: options.contextWindow,
    autoCompact: options.autoCompact,
    workspace: options.cwd,
    env: userEnv,
  }).then((choice) => ({
    ...choice,
    // A resumed session goes on in the window its last compaction fitted, unless told another.
    contextWindow: choice.contextWindow ?? file.contextWindow ?? null,
  }));
  const modelSettings = Promise.all([thinkingChoice, compactionChoice]).then(
    ([thinking, choice]): ModelSettings => ({
      thinking,
      contextWindow: choice.contextWindow ?? undefined,
    }),
  );
  // The agent tool's children run on the session's provider as it is then (after /model, the
  // new one), or on another model of the same provider that a definition names.
  const subagents = {
    channel: createSubagentChannel(),
    models: {
      current: (): Provider => provider,
      start: async (name: string): Promise<Provider> =>
        startProvider(resolveModel(name), where, hooks, await modelSettings),
    },
    // The parent's prompt without its skills' catalog: the child has no skill tool.
    environment: () => buildSystemPrompt(options.cwd, promptFacts),
    stopCheck: userHooks.sessionHooks?.subagentStopCheck,
    // The list of agents takes the skills' catalog's share of the window, known below.
    listBudget: () => catalogShare,
  };
  // What the system prompt says of the session, once the tools are known; a child's says the same.
  let promptFacts: SessionFacts | undefined;
  // Tools first: the sandbox's trial run starts at once and goes on while the SDKs load.
  const [tools, model, compaction] = await Promise.allSettled([
    createSessionTools({
      options,
      mode,
      env,
      userEnv,
      stateDirectory: stateDirectory(userEnv),
      readline: io.readline,
      holdProgress: io.holdProgress,
      keyVariable: resolved.apiKeyEnv,
      todos,
      tasks,
      skills: skills.skills,
      loadedSkills,
      toolHooks: userHooks.toolHooks,
      localModel: resolved.protocol === "local",
      onNotice: (sentence) => notices.push(sentence),
      plan,
      onModeChange: (next) => writer.recordMode(next),
      subagents,
    }),
    modelSettings.then((settings) => startProvider(resolved, where, hooks, settings)),
    compactionChoice,
  ]);
  if (model.status === "rejected" || compaction.status === "rejected") {
    if (tools.status === "fulfilled") await tools.value.toolbox.dispose();
    throw model.status === "rejected" ? model.reason : (compaction as PromiseRejectedResult).reason;
  }
  if (tools.status === "rejected") throw tools.reason;
  let provider = withImageRepair(
    withAssumedFactsNotice(model.value, resolved, options, onNotice),
    hooks.onRepair,
  );
  const { toolbox, modes } = tools.value;
  modeNow = modes.current;
  const compactionFor = (sessionId: string) => {
    const contextWindow = contextWindowOf(compaction.value, provider);
    return createCompaction({
      contextWindow,
      auto: compaction.value.auto,
      outputReserve: provider.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE,
      resultsDirectory: join(directory, sessionId, "tool-results"),
      restate: () =>
        restated([
          todosRestated(todos.items()),
          plan.restated(modes.current()),
          skillsRestated(loadedSkills, contextWindow),
        ]),
      beforeSummary: userHooks.sessionHooks?.beforeCompact,
    });
  };
  if (provider.device) {
    const tokens = count(contextWindowOf(compaction.value, provider));
    notices.push(`local model ${provider.model} on ${provider.device}, context ${tokens} tokens.`);
  }
  const catalogShare = catalogBudget(contextWindowOf(compaction.value, provider));
  const toolNames = toolbox.definitions.map((tool) => tool.name);
  // The catalog goes with the skill tool: without it (--tools bash), the model cannot load one.
  const skillCatalog = toolNames.includes("skill")
    ? catalogSection(skills.skills, {
        cwd: options.cwd,
        home: homeOf(userEnv),
        budget: catalogShare,
      })
    : null;
  promptFacts = {
    mode,
    allowNetwork: options.allowNetwork,
    toolNames,
    env: userEnv,
    instructions: memory.text,
  };
  const session = createAgentSession({
    provider,
    toolbox,
    system: buildSystemPrompt(options.cwd, { ...promptFacts, skillCatalog }),
    maxTurns: options.maxTurns,
    maxCostUsd: options.maxCost,
    writer,
    messages: file.messages,
    compaction: compactionFor(writer.id),
    todos,
    hooks: userHooks.sessionHooks,
    onNotice,
    planning: { plan, mode: modes.current },
    tasks,
    subagents: subagents.channel,
  });
  // What a new session's header names: the model of the latest /model.
  let current = resolved;
  const controls: SessionControls = {
    provider: resolved.preset,
    get mode() {
      return modes.current();
    },
    switchMode: (next) => modes.change(next),
    planFile: plan.file,
    skills,
    loadedSkills,
    hooks: userHooks,
    permissionRules: () => loadPermissionRules({ workspace: options.cwd, env: userEnv }),
    switchSession(id) {
      const next = openSessionFile(directory, options.cwd, current, id ? { id } : undefined);
      session.switchSession({ ...next, compaction: compactionFor(next.writer.id) });
      todos.restore(next.todos);
      loadedSkills.restore(skillsInHistory(next.messages));
      writer = next.writer;
      // A new history: the model knows nothing of plan mode yet, and the new file says it is on.
      plan.told(null);
      recordPlanMode(writer, modes.current(), next.mode);
      return { sessionPath: next.writer.path, notices: next.notices };
    },
    async switchModel(name) {
      const next = resolveModel(name);
      const started = await startProvider(next, where, hooks, await modelSettings);
      provider = withImageRepair(
        withAssumedFactsNotice(started, next, options, onNotice),
        hooks.onRepair,
      );
      current = next;
      await session.switchProvider(provider, compactionFor(session.id));
    },
  };
  return { session, sessionPath: writer.path, notices, controls };
}

/**
 * Says in the session file whether it goes on in plan mode, when the file says otherwise (it
 * last recorded `recorded`): a resume then starts in plan mode exactly when it was left in it.
 */
function recordPlanMode(
  writer: SessionWriter,
  mode: PermissionMode,
  recorded: PermissionMode | undefined,
): void {
  if ((mode === "plan") !== (recorded === "plan")) writer.recordMode(mode);
}

/** The states restated beside a compaction's summary, one paragraph each; null when none has any. */
function restated(parts: (string | null)[]): string | null {
  const present = parts.filter((part) => part !== null);
  return present.length > 0 ? present.join("\n\n") : null;
}

/** The loaded skills' texts beside a compaction's summary, within RESTATED_SKILLS_TOKENS. */
function skillsRestated(loaded: LoadedSkills, contextWindow: number): string | null {
  const tokens = RESTATED_SKILLS_TOKENS;
  const total = Math.min(tokens.total, Math.floor(contextWindow * tokens.windowShare));
  // Bytes, at about four a token.
  return loaded.restated({ total: total * 4, each: Math.min(tokens.each, total) * 4 });
}

/** A new session file, or the file of the session to resume with its history made valid again. */
function openSessionFile(
  directory: string,
  cwd: string,
  resolved: ResolvedProvider,
  resume: RunOptions["resume"],
): {
  writer: SessionWriter;
  messages: Message[];
  notices: string[];
  contextWindow?: number;
  todos: TodoItem[];
  mode?: PermissionMode;
} {
  const resumed = resume ? findSessionToResume(directory, cwd, resume) : undefined;
  const notices = (resumed?.problems ?? []).map(
    (problem) => `session file line ${problem.line} skipped: ${problem.reason}.`,
  );
  const writer = openSessionWriter(
    directory,
    resumed?.header ?? {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: newSessionId(),
      cwd,
      model: resolved.model,
      provider: resolved.preset,
      startedAt: new Date().toISOString(),
    },
    { resume: resumed !== undefined },
  );
  for (const message of resumed?.added ?? []) writer.recordMessage(message);
  const contextWindow = resumed?.contextWindow;
  return {
    writer,
    messages: resumed?.messages ?? [],
    notices,
    contextWindow,
    todos: resumed?.todos ?? [],
    mode: resumed?.mode,
  };
}

/**
 * A hosted model the table does not know is told about once, after its first reply: its
 * window and price are assumed. Said before, it would stand in front of the one sentence of a
 * model the server does not know either.
 */
function withAssumedFactsNotice<P extends Provider>(
  provider: P,
  resolved: ResolvedProvider,
  options: RunOptions,
  notice: (sentence: string) => void,
): P {
  const hosted = resolved.apiKeyEnv !== null && resolved.protocol !== "local";
  if (!hosted || options.contextWindow !== undefined || modelFacts(provider.model)) {
    return provider;
  }
  let told = false;
  return {
    ...provider,
    async *stream(request) {
      const reply = yield* provider.stream(request);
      if (!told) notice(assumedFactsNotice(provider.model));
      told = true;
      return reply;
    },
  };
}

/**
 * The provider a resolved configuration names. Its SDK (or the local model engine) loads while
 * the rest of start-up goes on; a local model is found or downloaded, then loaded.
 */
async function startProvider(
  resolved: ResolvedProvider,
  where: { env: NodeJS.ProcessEnv; cwd: string },
  hooks: ProviderHooks,
  settings: ModelSettings,
): Promise<Provider & { device?: string; contextWindow?: number }> {
  if (resolved.protocol === "local") {
    const { startLocalProvider } = await import("../providers/local-start.js");
    const progress = process.stderr;
    const { onRepair } = hooks;
    return startLocalProvider({ reference: resolved.model, ...where, progress, onRepair });
  }
  // Each SDK on its own: the one not used is not compiled before the first request.
  if (resolved.protocol === "anthropic") {
    const { createAnthropicProvider } = await import("../providers/anthropic.js");
    return createAnthropicProvider(anthropicOptions(resolved, hooks, settings));
  }
  if (resolved.api === "responses") {
    const { createResponsesProvider } = await import("../providers/openai-responses.js");
    return createResponsesProvider(openAIOptions(resolved, hooks, settings));
  }
  const { createOpenAIProvider } = await import("../providers/openai.js");
  return createOpenAIProvider(openAIOptions(resolved, hooks, settings));
}
