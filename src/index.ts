// The library API: the same loop, tools, providers and safety pieces the CLI uses.

export { type AgentToolOptions, createAgentTool } from "./agents/agent-tool.js";
export { createSubagentChannel, type SubagentChannel } from "./agents/channel.js";
export { type AgentDefinition, parseDefinition } from "./agents/definition.js";
export { findAgents } from "./agents/discovery.js";
export {
  type AssembledSession,
  assembleSession,
  type SessionControls,
} from "./assembly/assemble.js";
export { type PartContext, type PartEntry, SESSION_PARTS } from "./assembly/parts.js";
export type { SessionIO } from "./assembly/session-io.js";
export type { SessionOptions } from "./assembly/session-options.js";
export { createTaskStopTool } from "./background/task-stop.js";
export { type BackgroundTasks, createBackgroundTasks } from "./background/tasks.js";
export { type BatchSummary, type PoolOptions, runPool } from "./batch/pool.js";
export { type AgentCommand, type RunTaskOptions, runTask } from "./batch/run-task.js";
export { parseTasks, type Task } from "./batch/task.js";
export type { TaskResult, TaskStatus } from "./batch/task-result.js";
export {
  type Compaction,
  type CompactionSettings,
  createCompaction,
} from "./compaction/compaction.js";
export type { BackgroundTask, BackgroundTaskStatus } from "./core/background-task.js";
export type { ChapterFlag, FlagValues } from "./core/chapter-flags.js";
export type { ComponentSource, ComponentSources } from "./core/component-sources.js";
export { ConfigError, ProviderError, type ProviderErrorKind } from "./core/errors.js";
export type {
  BackgroundTaskEvent,
  CompactionEvent,
  HookDecision,
  HookRunEvent,
  LoopEvent,
  LoopStop,
  LoopStopReason,
  PartEvent,
  SubagentEvent,
  TransitionReason,
} from "./core/events.js";
export * from "./core/messages.js";
export type { Notice, NoticeSource } from "./core/notices.js";
export type {
  ChildTools,
  HistoryStart,
  PartCommand,
  PartHost,
  PromptNote,
  SessionPart,
  SideEvents,
  StopCheck,
  ToolOffer,
} from "./core/part.js";
export type { TodoItem, TodoStatus } from "./core/todo-item.js";
export { type HookDefinition, type HookEventName, loadHooks } from "./hooks/config.js";
export { type HookSetup, type PreparedHooks, prepareHooks } from "./hooks/prepare.js";
export {
  agentLoop,
  createLoopState,
  executeToolCalls,
  type LoopOptions,
  type LoopState,
  runOneTurn,
} from "./loop.js";
export {
  createPermissionCheck,
  initShellParser,
  isReadOnlyCommand,
  type PermissionMode,
} from "./permissions/policy.js";
export { type AnthropicProviderOptions, createAnthropicProvider } from "./providers/anthropic.js";
export { createProvider } from "./providers/create-provider.js";
export {
  createLocalProvider,
  type LocalProvider,
  type LocalProviderOptions,
} from "./providers/local.js";
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_OUTPUT,
  type ModelFacts,
  modelFacts,
} from "./providers/model-table.js";
export { createOpenAIProvider, type OpenAIProviderOptions } from "./providers/openai.js";
export {
  createResponsesProvider,
  type ResponsesProviderOptions,
} from "./providers/openai-responses.js";
export {
  DEFAULT_LOCAL_MODEL,
  PRESET_NAMES,
  type ResolvedProvider,
  resolveProvider,
} from "./providers/presets.js";
export type {
  ModelReply,
  ModelRequest,
  Provider,
  StreamEvent,
  ToolDefinition,
} from "./providers/provider.js";
export {
  EFFORTS,
  type Effort,
  THINKING_MODES,
  type ThinkingMode,
  type ThinkingOptions,
} from "./providers/thinking-options.js";
export type { SandboxOptions } from "./sandbox/sandbox.js";
export { checkSandbox, createSandbox } from "./sandbox/select.js";
export {
  type AgentSession,
  type AgentSessionOptions,
  createAgentSession,
} from "./session/agent-session.js";
export { contextFromEntries } from "./session/replay.js";
export {
  listSessions,
  newSessionId,
  openSessionWriter,
  readSession,
  type SessionWriter,
  sessionsDirectory,
} from "./session/session-file.js";
export { buildSystemPrompt, type SessionFacts, sessionContext } from "./session/system-prompt.js";
export { type BashInput, type BashOptions, createBashTool, runBash } from "./tools/bash.js";
export { buildCommandEnv, type CommandEnvOptions } from "./tools/command-env.js";
export { ShellSession } from "./tools/shell-session.js";
export type { JsonSchemaObject, Tool, ToolContext, ToolOutput } from "./tools/tool.js";
export {
  createToolbox,
  type PermissionCheck,
  type Toolbox,
  type ToolCallHooks,
} from "./tools/toolbox.js";
