// A session assembled from its settings: the provider, the session file (new or resumed), the
// built-in tools under the permission mode, the parts of SESSION_PARTS, the toolbox, compaction
// and the system prompt. The command line, the REPL, batch runs and library users all start a
// session here; what is asked of the person goes through SessionIO. It reads top to bottom.

import { join } from "node:path";
import { createBackgroundPart } from "../background/part.js";
import { createCompaction } from "../compaction/compaction.js";
import { chooseCompaction, contextWindowOf } from "../compaction/settings.js";
import { ConfigError } from "../core/errors.js";
import type { SessionPart } from "../core/part.js";
import { readProjectSettings } from "../core/project-settings.js";
import { stateDirectory } from "../core/state-directory.js";
import { count } from "../core/wording.js";
import { prepareHooks } from "../hooks/prepare.js";
import {
  createPermissionCheck,
  defaultPermissionMode,
  loadPermissionRules,
  parsePermissionMode,
} from "../permissions/policy.js";
import { approveProjectSettings } from "../permissions/project-approval.js";
import { createRedactor, secretValues } from "../permissions/secrets.js";
import { createPlanningPart } from "../planning/part.js";
import { createPlanMode } from "../planning/plan-mode.js";
import { createTodoList } from "../planning/todo-list.js";
import { chooseApi } from "../providers/api-setting.js";
import { withImageRepair } from "../providers/image-repair.js";
import { type ResolvedProvider, resolveProvider } from "../providers/presets.js";
import type { Provider } from "../providers/provider.js";
import type { ModelSettings, ProviderHooks } from "../providers/provider-options.js";
import { chooseThinking } from "../providers/thinking-options.js";
import { workspaceEnvironment } from "../providers/workspace-env.js";
import { readSandboxSettings } from "../sandbox/sandbox-settings.js";
import { type AgentSession, createAgentSession } from "../session/agent-session.js";
import { sessionsDirectory } from "../session/session-file.js";
import { buildSystemPrompt } from "../session/system-prompt.js";
import { findSkills } from "../skills/find-skills.js";
import { createLoadedSkills } from "../skills/loaded-skills.js";
import { readProjectMemory } from "../skills/project-memory.js";
import { skillsInHistory } from "../skills/skills-in-history.js";
import { chooseTools } from "../tools/tool-set.js";
import { createToolbox } from "../tools/toolbox.js";
import { afterStartUp } from "./after-start-up.js";
import { createBuiltInTools } from "./built-in-tools.js";
import { childToolsOf } from "./child-tools.js";
import { beforeCompactOf, chainToolHooks, restatedBy, toolsOfParts } from "./part-tools.js";
import { componentSourcesOf, type PartEntry, SESSION_PARTS, startParts } from "./parts.js";
import type { SessionControls } from "./session-controls.js";
import { openSessionFile, recordPlanMode } from "./session-file-open.js";
import type { SessionIO } from "./session-io.js";
import type { SessionOptions } from "./session-options.js";
import { startProvider, withAssumedFactsNotice } from "./start-provider.js";

/** Room kept for the reply when the provider sets no output limit of its own. */
const DEFAULT_OUTPUT_RESERVE = 8192;

export type { SessionControls };

export interface AssembledSession {
  session: AgentSession;
  sessionPath: string;
  /** Things the user should know before the run starts (repairs, warnings). */
  notices: string[];
  controls: SessionControls;
}

/** `entries`: the parts to assemble from, SESSION_PARTS unless a library user adds their own. */
export async function assembleSession(
  options: SessionOptions,
  io: SessionIO,
  entries: readonly PartEntry[] = SESSION_PARTS,
): Promise<AssembledSession> {
  const notices: string[] = [];
  const notice = (sentence: string) => notices.push(sentence);
  // The real environment wins over .env, which configures agentloop only and is never
  // passed on to the commands it runs. Where settings, approvals and sessions live comes from
  // the real environment alone: a repository's .env must not point agentloop at files it wrote.
  const userEnv = process.env;
  const configuration = await workspaceEnvironment({ workspace: options.cwd, env: userEnv });
  const env = configuration.env;
  // Said at once: what of the .env was not used explains where the session goes, or why a
  // download fails, before anything is sent.
  for (const sentence of configuration.notices) io.notice(sentence);
  const where = { workspace: options.cwd, env: userEnv };
  // The settings files and the person's answers about them, read once for all of start-up:
  // every part below reads its keys from this (again only if the person answers a question).
  const startRead = await readProjectSettings(where);
  const api = await chooseApi({ flag: options.api, ...where, read: startRead });
  /** A model of the session's provider: the one chosen, or another (/model, an agent's). */
  const resolveModel = (model: string | undefined, preset = options.provider) => {
    const resolved = resolveProvider({
      provider: preset,
      model,
      baseURL: options.baseURL,
      api,
      env,
    });
    if (resolved instanceof ConfigError) throw resolved;
    return resolved;
  };
  const resolved = resolveModel(options.model);

  // The session file, and what a resumed one brings back: its todo list, skills and mode.
  const directory = sessionsDirectory(userEnv);
  const file = openSessionFile(directory, options.cwd, resolved, options.resume);
  notices.push(...file.notices);
  let writer = file.writer;
  const sessionDirectory = () => join(directory, writer.id);
  const hooks: ProviderHooks = {
    onRepair(description) {
      writer.recordRepair(description);
      io.repaired(description);
    },
    onNotice: io.notice,
  };
  const interactive = io.askPermission !== undefined;
  // A session left in plan mode goes on in it, unless the command line names a mode.
  const mode = options.permissionMode
    ? parsePermissionMode(options.permissionMode)
    : file.mode === "plan"
      ? "plan"
      : defaultPermissionMode({ interactive });
  recordPlanMode(writer, mode, file.mode);
  if (mode === "yolo") {
    notice(
      "permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.",
    );
  }

  // Before the parts read their keys: which of the project's wait for the person's trust.
  const read = await approveProjectSettings({
    ...where,
    read: startRead,
    ask: mode === "ask" ? io.approveProjectSettings : undefined,
    onNotice: notice,
  });
  const atStart = { ...where, read };
  // Folders beside the person's own (the enabled plugins'), for the hooks, skills, agents and
  // MCP servers below to read as one more place each; found while the tools are chosen.
  const sourcesFound = componentSourcesOf(entries, { ...where, settings: read });
  const [{ names, partTools, chosen: toolsChosen }, rules, sandboxSettings] = await Promise.all([
    chooseTools({
      flag: options.tools,
      ...atStart,
      localModel: resolved.protocol === "local",
      chapters: entries,
    }),
    loadPermissionRules(atStart),
    readSandboxSettings(options.cwd, userEnv, read),
  ]);
  if (sandboxSettings.ignored) notice(sandboxSettings.ignored);
  // Awaited here, before the sandbox's trial run and the provider start: from there on nothing is
  // awaited until all of them are settled together below, so a failure of one (no bwrap, no model
  // file) is that one sentence, never a rejection Node finds unhandled while something else waits.
  const sources = await sourcesFound;
  const writableGitDir = options.writableGitDir === true || sandboxSettings.writableGitDir;
  const redact = createRedactor(secretValues(env));
  // Beside the session file, in the directory of the session that started them.
  const background = createBackgroundPart({
    outputDirectory: join(sessionDirectory(), "tasks"),
    redact,
    offerStop: names.includes("bash"),
  });
  // Tools first: the sandbox's trial run starts at once and goes on while the SDKs load.
  const builtIns = createBuiltInTools({
    cwd: options.cwd,
    mode,
    allowNetwork: options.allowNetwork,
    names,
    stateDirectory: stateDirectory(userEnv),
    switchable: interactive,
    writableGitDir,
    secretNames: resolved.apiKeyEnv ? [resolved.apiKeyEnv] : [],
    redact,
    startBackground: names.includes("bash") ? background.tasks.start : undefined,
  });
  const { modes } = builtIns;
  // The plan lives beside the session's other files, outside the workspace it must not change.
  const plan = createPlanMode({ file: () => join(sessionDirectory(), "plan.md") });
  const todos = createTodoList(file.todos);
  const planning = createPlanningPart({
    todos,
    plan,
    modes,
    offerTodos: partTools.includes("todo_write"),
    planWrite: builtIns.planWrite,
    approve: io.approvePlan,
  });
  modes.onChange((next) => {
    writer.recordMode(next);
    planning.modeChanged(next);
  });
  // A project's hooks may need a question answered before the session starts.
  const preparedHooks = prepareHooks({
    ...atStart,
    sources,
    permissionMode: modes.current,
    session: () => ({ id: writer.id, transcriptPath: writer.path }),
    ask: mode === "ask" ? io.approveProjectHooks : undefined,
    onNotice: notice,
    onRunNotice: io.notice,
  });
  const thinking = chooseThinking({
    effort: options.effort,
    thinking: options.thinking,
    showThinking: interactive,
    ...atStart,
  });
  const compactionChoice = chooseCompaction({
    contextWindow: options.contextWindow,
    autoCompact: options.autoCompact,
    ...atStart,
  }).then((choice) => ({
    ...choice,
    // A resumed session goes on in the window its last compaction fitted, unless told another.
    contextWindow: choice.contextWindow ?? file.contextWindow ?? null,
  }));
  let modelSettings = Promise.all([thinking, compactionChoice]).then(
    ([thinkingOptions, choice]): ModelSettings => ({
      thinking: thinkingOptions,
      contextWindow: choice.contextWindow ?? undefined,
    }),
  );
  const providerPlace = { env, cwd: options.cwd, progress: io.progress };
  /** A provider made as at start-up, told of a model the table does not know, images repaired. */
  const started = async (next: ResolvedProvider): Promise<Provider> => {
    const made = await startProvider(next, providerPlace, hooks, await modelSettings);
    return withImageRepair(withAssumedFactsNotice(made, next, options, io.notice), hooks.onRepair);
  };
  const starting = modelSettings.then((settings) =>
    startProvider(resolved, providerPlace, hooks, settings),
  );
  const contextWindow = Promise.all([compactionChoice, starting]).then(([choice, made]) =>
    contextWindowOf(choice, made),
  );
  // Knowledge by files: read from the real environment only, as the settings are.
  const skills = findSkills({ cwd: options.cwd, env: userEnv, read, sources });
  const loadedSkills = createLoadedSkills(skillsInHistory(file.messages));
  const memory = readProjectMemory({ cwd: options.cwd, env: userEnv });
  notices.push(...skills.skipped, ...memory.problems);

  const partsStarting = startParts(entries, {
    options,
    cwd: options.cwd,
    env: userEnv,
    settings: read,
    toolNames: names,
    partTools,
    toolsChosen,
    mcpConfigFiles: options.mcpConfigFiles,
    sources,
    modes,
    rules,
    io,
    notice,
    scratch: builtIns.scratch,
    contextWindow,
    hooks: preparedHooks,
    skills: skills.skills,
    loadedSkills,
    planning,
    background,
    startModel: (name) => started(resolveModel(name, resolved.preset)),
    flags: options.flags ?? {},
    redact,
  });
  const outcome = await Promise.allSettled([
    builtIns.ready,
    starting,
    compactionChoice,
    partsStarting,
    preparedHooks,
  ]);
  const failed = outcome.find((each) => each.status === "rejected");
  if (failed) {
    if (outcome[3].status === "fulfilled") {
      for (const part of outcome[3].value) await part.close?.();
    }
    if (outcome[1].status === "fulfilled") await outcome[1].value.dispose?.();
    builtIns.dispose();
    throw failed.reason;
  }
  const parts = (outcome[3] as PromiseFulfilledResult<SessionPart[]>).value;
  const compaction = (outcome[2] as PromiseFulfilledResult<Awaited<typeof compactionChoice>>).value;
  const made = (outcome[1] as PromiseFulfilledResult<Awaited<typeof starting>>).value;
  let provider = withImageRepair(
    withAssumedFactsNotice(made, resolved, options, io.notice),
    hooks.onRepair,
  );
  const window = contextWindowOf(compaction, provider);
  if (made.device) {
    notice(`local model ${made.model} on ${made.device}, context ${count(window)} tokens.`);
  }

  const toolHooks = chainToolHooks(parts);
  const sessionTools = toolsOfParts(builtIns.tools, parts, modes.current);
  const checkPermission = createPermissionCheck({
    mode: modes.current,
    planFile: plan.file,
    workspace: options.cwd,
    rules,
    ask: io.askPermission,
    scratch: builtIns.scratch ? [builtIns.scratch] : [],
    readOnlySandboxed: builtIns.readOnlySandboxed,
    writableGitDir,
  });
  let startUpOver: Promise<void> | undefined;
  const toolbox = createToolbox(
    sessionTools,
    async (call, tool, hint) => {
      startUpOver ??= afterStartUp(directory);
      await startUpOver;
      return checkPermission(call, tool, hint);
    },
    toolHooks,
  );
  // Not a spread copy: `definitions` is a getter, read anew each turn.
  const disposeTools = toolbox.dispose;
  toolbox.dispose = async () => {
    await disposeTools();
    builtIns.dispose();
  };
  const childTools = childToolsOf({
    builtIns,
    parts,
    permissions: {
      planFile: plan.file,
      workspace: options.cwd,
      rules,
      ask: io.askPermission,
      readOnlySandboxed: builtIns.readOnlySandboxed,
      writableGitDir,
    },
    hooks: toolHooks,
  });
  const compactionFor = (sessionId: string) =>
    createCompaction({
      contextWindow: contextWindowOf(compaction, provider),
      auto: compaction.auto,
      outputReserve: provider.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE,
      resultsDirectory: join(directory, sessionId, "tool-results"),
      restate: () => restatedBy(parts),
      beforeSummary: beforeCompactOf(parts),
    });

  // What the system prompt says of the session, once the tools are known; a child's says the same.
  const facts = {
    mode,
    allowNetwork: options.allowNetwork,
    writableGitDir,
    toolNames: toolbox.definitions.map((tool) => tool.name),
    env: userEnv,
    instructions: memory.text,
  };
  const sections = parts.map((part) => part.systemPrompt?.() ?? null);
  const session = createAgentSession({
    provider,
    toolbox,
    system: buildSystemPrompt(options.cwd, { ...facts, sections }),
    basePrompt: buildSystemPrompt(options.cwd, facts),
    maxTurns: options.maxTurns,
    maxCostUsd: options.maxCost,
    writer,
    messages: file.messages,
    compaction: compactionFor(writer.id),
    parts,
    childTools,
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
    sources,
    hooks: await preparedHooks,
    todos: todos.items,
    tasks: background.tasks,
    permissionRules: () => loadPermissionRules(where),
    switchSession(id) {
      const next = openSessionFile(directory, options.cwd, current, id ? { id } : undefined);
      writer = next.writer;
      session.switchSession({ ...next, compaction: compactionFor(next.writer.id) });
      todos.restore(next.todos);
      // The new file says whether plan mode is on.
      recordPlanMode(writer, modes.current(), next.mode);
      return { sessionPath: next.writer.path, notices: next.notices };
    },
    async switchModel(name) {
      const next = resolveModel(name, resolved.preset);
      provider = await started(next);
      current = next;
      await session.switchProvider(provider, compactionFor(session.id));
    },
    effort: async () => (await modelSettings).thinking?.effort,
    async switchEffort(effort) {
      modelSettings = modelSettings.then((settings) => ({
        ...settings,
        thinking: { ...settings.thinking, effort },
      }));
      provider = await started(current);
      await session.switchProvider(provider, compactionFor(session.id));
    },
  };
  return { session, sessionPath: writer.path, notices, controls };
}
