// The command line, in one place: flags are parsed into a plain object, and every mistake a
// user can make ends in a ConfigError with one sentence. The chapters' own flags (--memory,
// --goal, ...) are declared in their chapter.ts files and read from the session's list, whose
// module loads no chapter (each entry imports its part only when it starts).

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SESSION_PARTS } from "../assembly/parts.js";
import type { SessionOptions } from "../assembly/session-options.js";
import { ConfigError } from "../core/errors.js";
import { positiveInteger } from "../core/flag-checks.js";
import { EFFORTS, settingOf, THINKING_MODES } from "../providers/thinking-options.js";
import { flagUsage, flagValues, parseArgsOptions } from "./chapter-flags.js";

export type OutputFormat = "text" | "json" | "stream-json";
const OUTPUT_FORMATS: OutputFormat[] = ["text", "json", "stream-json"];

export interface RunOptions extends SessionOptions {
  command: "run";
  /** The prompt from the command line; with -p and none, it comes from stdin. */
  prompt: string | undefined;
  /** Run one task and exit (a prompt or -p was given) rather than start the REPL. */
  oneShot: boolean;
  outputFormat: OutputFormat;
}

export interface ViewOptions {
  command: "view";
  cwd: string;
  sessionId: string | undefined;
  port: number | undefined;
  open: boolean;
  exportPath: string | undefined;
}

/** `agentloop acp`: an editor's agent on stdio; the flags are its sessions' defaults. */
export interface AcpOptions extends SessionOptions {
  command: "acp";
}

export type CommandLine =
  | RunOptions
  | AcpOptions
  | ViewOptions
  | { command: "sessions"; cwd: string }
  | { command: "mcp-list"; cwd: string; mcpConfigFiles: string[] }
  | { command: "help" }
  | { command: "version" };

export const DEFAULT_MAX_TURNS = 200;

/** Every chapter's flags, in the order of the session's list. */
const CHAPTER_FLAGS = SESSION_PARTS.flatMap((entry) => entry.flags ?? []);

export const USAGE = `Usage:
  agentloop                      start an interactive session (REPL) in this directory
  agentloop "task" | -p "task"   run one task to completion and print the answer
  echo "task" | agentloop -p     the prompt may also come from stdin
  agentloop sessions             list this directory's sessions
  agentloop rewind --list | N    list the checkpoints; take code and conversation back to before
                                 prompt N (--code, --conversation; agentloop rewind --help)
  agentloop view [ID]            replay a session in the browser (--port N, --open, --export FILE)
  agentloop export --format atif [ID] [-o FILE]   the session as a Harbor (ATIF) trajectory
  agentloop mcp list             the MCP servers here, their state, tools and request bytes
  agentloop memory [list|forget ID|pin ID|clear]   what agentloop remembers of this directory
  agentloop acp                  an Agent Client Protocol agent on stdio, for editors (Zed, ...)
  agentloop worktree list|remove NAME [--force]   agentloop's git worktrees (docs/worktrees.md)
  agentloop plugin install NAME@MARKETPLACE   Claude Code plugins: marketplace add PATH|URL,
                                 enable, disable, uninstall, list, validate (docs/plugins.md)
  agentloop batch run TASKS.jsonl --out DIR   run many tasks, each in a fresh clone
                                 (agentloop batch --help for all batch commands)

Options:
  --model M                      model name (env MODEL_ID); with --provider local, a .gguf path,
                                 hf:OWNER/REPO/FILE.gguf or a URL
  --provider NAME                anthropic, openai, ollama, lmstudio, vllm, llamacpp, openrouter,
                                 deepseek, or local (a model run inside agentloop, no key needed)
  --base-url URL                 API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL)
  --api responses|chat           OpenAI's protocol: Responses (default for --provider openai)
                                 or Chat Completions (default for the compatible servers)
  --max-turns N                  stop after N model turns (default ${DEFAULT_MAX_TURNS}; exit code 3)
  --max-cost USD                 stop when the session has cost this much (exit code 3)
  --effort LEVEL                 low, medium, high, xhigh or max: how hard the model thinks
  --thinking adaptive|off        think before answering, or not (where the model allows it)
  --context-window N             the model's context window in tokens (default: known per model)
  --no-auto-compact              compact only on /compact or when the API says "too long"
  --tools LIST                   the tools the model gets, e.g. "bash" for s01's one tool
                                 (default: bash,read,write,edit, skill when there are skills,
                                 and for a hosted model agent, web_fetch and web_search, the
                                 provider's own search where its API runs it: Anthropic's,
                                 OpenAI's Responses; add todo_write for the todo list)
  --mcp-config FILE              MCP servers to add, in .mcp.json's format (may be repeated)
  --output-format F              text, json or stream-json (one-shot mode)
  --continue                     continue the latest session in this directory
  --resume ID                    continue the given session
  --permission-mode M            ask, auto, read-only, yolo or plan (look, propose a plan, ask)
  --dangerously-skip-permissions same as --permission-mode yolo
  --allow-network                let sandboxed commands use the network
  --writable-git-dir             let sandboxed commands write the repository's .git (git add,
                                 commit; or "sandbox": {"writableGitDir": true} in your settings)
${flagUsage(CHAPTER_FLAGS)}
  --cwd DIR                      work in DIR instead of the current directory
  --worktree [NAME]              work in a new git worktree on the branch agentloop/NAME, removed
                                 at the end if nothing changed (docs/worktrees.md)
  --version, --help

Skills and commands: .agentloop/skills/NAME/SKILL.md (or in .claude/ or .agents/, here or in
  ~/.config/agentloop/, ~/.claude/, ~/.agents/) and .agentloop/commands/NAME.md (or .claude/);
  "/NAME args" runs one, in the REPL or with -p; /skills lists them.
Instructions: AGENTS.md or CLAUDE.md (with @path imports), ~/.config/agentloop/AGENTS.md first,
  AGENTS.local.md last.
Subagents: .agentloop/agents/NAME.md or .claude/agents/NAME.md (and ~/.config/agentloop/agents/).
Hooks: "hooks" in ~/.config/agentloop/settings.json or .agentloop/settings.json, in Claude
  Code's format; a project's hooks run once you approve them. /hooks lists them.
Settings: ~/.config/agentloop/settings.json, then .agentloop/settings.json and
  settings.local.json; what a project's would widen (allow rules, tools) applies once you approve
  it; a .env's keys and addresses count only when you have no key of your own. /permissions
  lists the rules.`;

export function parseCommandLine(argv: string[], currentDirectory = process.cwd()): CommandLine {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run agentloop --help for the options.`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };
  const cwd = resolve(currentDirectory, values.cwd ?? ".");

  const [first, ...rest] = positionals;
  if (first === "sessions" && rest.length === 0) return { command: "sessions", cwd };
  if (first === "mcp" && rest.length === 1 && rest[0] === "list") {
    const mcpConfigFiles = (values["mcp-config"] ?? []).map((file) => resolve(cwd, file));
    return { command: "mcp-list", cwd, mcpConfigFiles };
  }
  if (first === "view" && rest.length <= 1) {
    return {
      command: "view",
      cwd,
      sessionId: rest[0],
      port: values.port === undefined ? undefined : positiveInteger(values.port, "--port"),
      open: values.open ?? false,
      exportPath: values.export === undefined ? undefined : resolve(cwd, values.export),
    };
  }
  const outputFormat = (values["output-format"] ?? "text") as OutputFormat;
  if (!OUTPUT_FORMATS.includes(outputFormat)) {
    throw new ConfigError(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}.`);
  }
  if (values.continue && values.resume) {
    throw new ConfigError("Use either --continue or --resume ID, not both.");
  }
  const permissionMode = values["dangerously-skip-permissions"]
    ? "yolo"
    : values["permission-mode"];

  const run: RunOptions = {
    command: "run",
    prompt: positionals.length > 0 ? positionals.join(" ") : undefined,
    oneShot: values.print === true || positionals.length > 0,
    cwd,
    model: values.model,
    provider: values.provider,
    baseURL: values["base-url"],
    api: values.api,
    maxTurns:
      values["max-turns"] === undefined
        ? DEFAULT_MAX_TURNS
        : positiveInteger(values["max-turns"], "--max-turns"),
    maxCost: values["max-cost"] === undefined ? undefined : positiveNumber(values["max-cost"]),
    effort: settingOf(values.effort, EFFORTS, "--effort"),
    thinking: settingOf(values.thinking, THINKING_MODES, "--thinking"),
    contextWindow:
      values["context-window"] === undefined
        ? undefined
        : positiveInteger(values["context-window"], "--context-window"),
    autoCompact: values["no-auto-compact"] !== true,
    tools: values.tools === undefined ? undefined : toolList(values.tools),
    mcpConfigFiles: (values["mcp-config"] ?? []).map((file) => resolve(cwd, file)),
    outputFormat,
    resume: values.continue ? { latest: true } : values.resume ? { id: values.resume } : undefined,
    permissionMode,
    allowNetwork: values["allow-network"] ?? false,
    writableGitDir: values["writable-git-dir"] ?? false,
    flags: flagValues(CHAPTER_FLAGS, values),
  };
  return first === "acp" && rest.length === 0 ? { ...run, command: "acp" } : run;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...parseArgsOptions(CHAPTER_FLAGS),
      print: { type: "boolean", short: "p" },
      model: { type: "string" },
      provider: { type: "string" },
      "base-url": { type: "string" },
      api: { type: "string" },
      "max-turns": { type: "string" },
      "max-cost": { type: "string" },
      effort: { type: "string" },
      thinking: { type: "string" },
      "context-window": { type: "string" },
      "no-auto-compact": { type: "boolean" },
      tools: { type: "string" },
      "mcp-config": { type: "string", multiple: true },
      "output-format": { type: "string" },
      continue: { type: "boolean", short: "c" },
      resume: { type: "string", short: "r" },
      "permission-mode": { type: "string" },
      "dangerously-skip-permissions": { type: "boolean" },
      "allow-network": { type: "boolean" },
      "writable-git-dir": { type: "boolean" },
      cwd: { type: "string" },
      port: { type: "string" },
      open: { type: "boolean" },
      export: { type: "string" },
      version: { type: "boolean", short: "v" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function toolList(text: string): string[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0)
    throw new ConfigError("--tools needs at least one tool, for example --tools bash.");
  return names;
}

function positiveNumber(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`--max-cost must be a positive number of US dollars, got "${text}".`);
  }
  return value;
}
