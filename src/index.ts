// The library API: the same loop, tools and providers the CLI uses.

export type { LoopEvent, LoopStop, LoopStopReason, TransitionReason } from "./events.js";
export {
  agentLoop,
  createLoopState,
  executeToolCalls,
  type LoopOptions,
  type LoopState,
  runOneTurn,
} from "./loop.js";
export * from "./messages.js";
export type {
  ModelReply,
  ModelRequest,
  Provider,
  StreamEvent,
  ToolDefinition,
} from "./providers/provider.js";
export { type BashInput, type BashOptions, createBashTool, runBash } from "./tools/bash.js";
export { buildCommandEnv, type CommandEnvOptions } from "./tools/command-env.js";
export { ShellSession } from "./tools/shell-session.js";
export type { JsonSchemaObject, Tool, ToolContext, ToolOutput } from "./tools/tool.js";
export { createToolbox, type PermissionCheck, type Toolbox } from "./tools/toolbox.js";
