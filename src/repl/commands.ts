// The REPL's slash commands, as a table: name, argument, one line of help, and what it does.
// A line is a command when its first word is a slash and a name (`/compact the tests`); a
// path such as `/usr/bin/env is missing` is a prompt. No command ever sends a prompt.

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentLines } from "../agents/agent-list.js";
import type { SessionControls } from "../command-line/setup.js";
import type { LoopEvent } from "../core/events.js";
import type { SessionPart } from "../core/part.js";
import { localSettingsPath, projectSettingsPath, userSettingsPath } from "../core/settings.js";
import { plural } from "../core/wording.js";
import { hooksReport } from "../hooks/list.js";
import type { PermissionMode } from "../permissions/policy.js";
import { waitingSettings } from "../permissions/project-approval.js";
import type { AgentSession } from "../session/agent-session.js";
import { listSessions, sessionIds } from "../session/session-file.js";
import { invocationUsage } from "../skills/invocation.js";
import { beside } from "../terminal/wrap.js";
import { sessionLines } from "./session-list.js";
import { skillLines } from "./skill-list.js";
import { costReport } from "./status.js";

export interface CommandContext {
  readonly session: AgentSession;
  readonly controls: SessionControls;
  readonly cwd: string;
  readonly sessionsDirectory: string;
  /** Every command of this session: the REPL's own and its parts'. */
  readonly commands: readonly Command[];
  /** The current session's file; /clear and /resume change it. */
  sessionPath: string;
  /** Prints text and ends the line, wrapped to the terminal's width. */
  print(text: string): void;
  /** The terminal's width now, for text laid out in columns; undefined where nothing wraps. */
  readonly columns: number | undefined;
  /** Runs work as a prompt runs: its events are shown, and Ctrl-C aborts it. */
  run<T>(work: (signal: AbortSignal) => AsyncGenerator<LoopEvent, T>): Promise<T>;
  /** Ends the REPL. */
  exit(): void;
}

export interface Command {
  /** With its slash: `/compact`. */
  name: string;
  /** How the argument is written in the help: `[focus]`, `ID`; empty when there is none. */
  argument: string;
  help: string;
  run(argument: string, context: CommandContext): Promise<void> | void;
  /** Candidates for an argument that starts with `prefix`. */
  complete?(prefix: string, sources: CompletionSources): string[];
}

export interface CompletionSources {
  /** The ids of this directory's sessions, newest first. */
  sessionIds(): string[];
  /** The commands of the session's parts, then its skills and custom commands, as `/name`. */
  moreCommands(): string[];
}

/** Words that end the REPL as /exit does. */
const EXIT_WORDS = new Set(["exit", "quit", "q"]);

export const KEYS_HELP = [
  "Enter sends the prompt. A line ending in \\ goes on on the next line; a paste is one prompt.",
  "Up and Down recall earlier prompts, also of earlier sessions. Tab completes commands and session ids.",
  "Shift-Tab turns plan mode on or off, as /plan does.",
  "Ctrl-C clears the line, or stops the running turn; twice in a row exits. Ctrl-D exits too.",
];

const MODES: Record<PermissionMode, string> = {
  ask: "read-only commands run; anything else asks yes / no / always",
  auto: "commands run in the sandbox without asking; flagged ones are refused",
  "read-only": "commands run in a read-only sandbox; flagged ones are refused",
  yolo: "everything runs without a sandbox and without asking; only deny rules hold",
  plan: "commands run in a read-only sandbox; the file tools write only the plan file",
};

export const COMMANDS: Command[] = [
  {
    name: "/help",
    argument: "",
    help: "list the commands and keys",
    run(_argument, context) {
      const skills = context.controls.skills.skills;
      const rows = [
        ...context.commands.map((command) => [usage(command), command.help]),
        ...skills.map((skill) => [invocationUsage(skill), `(${skill.kind}) ${skill.description}`]),
      ];
      const width = Math.max(...rows.map(([name = ""]) => name.length)) + 2;
      // Each help beside its command, its later rows under its first word.
      const lines = rows.map(([name = "", help = ""]) =>
        beside(name.padEnd(width), help, context.columns),
      );
      context.print([...lines, "", ...KEYS_HELP].join("\n"));
    },
  },
  {
    name: "/agents",
    argument: "",
    help: "the agents the agent tool can run: the built-ins and the definitions found here",
    run(_argument, context) {
      context.print(agentLines(context.cwd, process.env, context.controls.sources).join("\n"));
    },
  },
  {
    name: "/clear",
    argument: "",
    help: "start a new session: a new session file and an empty history",
    run(_argument, context) {
      const previous = context.session.id;
      switchSession(context, undefined);
      context.print(
        `New session ${context.session.id}. The previous one is kept: /resume ${previous}.`,
      );
    },
  },
  {
    name: "/compact",
    argument: "[focus]",
    help: "summarise the history now, giving most room to the focus",
    async run(argument, context) {
      const outcome = await context.run((signal) =>
        context.session.compact(argument || undefined, signal),
      );
      context.print(outcome);
    },
  },
  {
    name: "/cost",
    argument: "",
    help: "tokens and cost of this session so far",
    run(_argument, context) {
      context.print(costReport(context.session));
    },
  },
  {
    name: "/model",
    argument: "[name]",
    help: "show the model; with a name, use that model of the same provider from now on",
    async run(argument, context) {
      const { session, controls } = context;
      if (argument && argument !== session.model) {
        await controls.switchModel(argument);
        context.print(`Model ${session.model} (${controls.provider}) from the next request on.`);
        return;
      }
      context.print(`Model ${session.model} (${controls.provider}). /model NAME changes it.`);
    },
  },
  {
    name: "/skills",
    argument: "",
    help: "the skills and custom commands, and where each comes from",
    run(_argument, context) {
      context.print(skillLines(context.controls.skills, context.cwd).join("\n"));
    },
  },
  {
    name: "/sessions",
    argument: "",
    help: "this directory's sessions: id, start, model, turns, first prompt",
    run(_argument, context) {
      const sessions = listSessions(context.sessionsDirectory, context.cwd);
      context.print(sessionLines(sessions, context.session.id).join("\n"));
    },
  },
  {
    name: "/resume",
    argument: "ID",
    help: "go on with another session of this directory, with its history",
    run(argument, context) {
      if (!argument) {
        context.print("Which one? /resume ID; /sessions lists them.");
        return;
      }
      const ids = sessionIds(context.sessionsDirectory, context.cwd);
      const matches = ids.includes(argument)
        ? [argument]
        : ids.filter((id) => id.startsWith(argument) || id.endsWith(argument));
      if (matches.length > 1) {
        context.print(`${argument} could be ${matches.join(" or ")}; give more of the id.`);
        return;
      }
      // An id not listed here may still be a session of another directory, as with --resume.
      const id = matches[0] ?? argument;
      if (id === context.session.id) {
        context.print(`Session ${id} is the one you are in.`);
        return;
      }
      const previous = context.session.id;
      switchSession(context, id);
      const messages = context.session.state.messages.length;
      context.print(
        `Resumed session ${id} (${plural(messages, "message")}). The previous one is kept: /resume ${previous}.`,
      );
    },
    complete: (prefix, sources) => sources.sessionIds().filter((id) => id.startsWith(prefix)),
  },
  {
    name: "/plan",
    argument: "",
    help: "plan mode on or off: the model looks around and proposes a plan for you to approve, changing no file but the plan",
    async run(_argument, context) {
      const { controls } = context;
      if (controls.mode === "plan") {
        await controls.switchMode("ask");
        context.print(`Plan mode off: permission mode ask (${MODES.ask}).`);
        return;
      }
      await controls.switchMode("plan");
      context.print(
        `Plan mode on: ${MODES.plan}, ${controls.planFile()}. The model learns it with your next prompt and asks you to approve its plan; /plan again leaves.`,
      );
    },
  },
  {
    name: "/permissions",
    argument: "",
    help: "the permission mode, the rules in force, and the project's settings waiting for you",
    async run(_argument, context) {
      const { mode } = context.controls;
      const rules = await context.controls.permissionRules();
      const lines = [`Permission mode ${mode}: ${MODES[mode]}.`];
      for (const kind of ["allow", "ask", "deny"] as const) {
        if (rules[kind].length > 0) lines.push(`${kind}: ${rules[kind].join(", ")}`);
      }
      const files = `${userSettingsPath()}, ${projectSettingsPath(context.cwd)} and ${localSettingsPath(context.cwd)}`;
      lines.push(
        rules.allow.length + rules.ask.length + rules.deny.length > 0
          ? `Rules come from ${files}; the built-in deny list applies too.`
          : `No rules in ${files}; the built-in deny list applies.`,
        ...(await waitingSettings({ workspace: context.cwd, env: process.env })),
      );
      context.print(lines.join("\n"));
    },
  },
  {
    name: "/hooks",
    argument: "",
    help: "the hooks in force and the file each comes from",
    run(_argument, context) {
      const { running, skipped } = context.controls.hooks;
      context.print(hooksReport(running, skipped));
    },
  },
  {
    name: "/export",
    argument: "[file]",
    help: "write this session as one self-contained HTML page (without a file: in the session's own folder)",
    async run(argument, context) {
      const { runViewCommand } = await import("../viewer/view-command.js");
      await runViewCommand({
        sessionId: context.sessionPath,
        cwd: context.cwd,
        exportPath: argument || ownFolderPage(context.sessionPath, context.session.id),
        sessionsDir: context.sessionsDirectory,
        stdout: context.print,
      });
    },
  },
  {
    name: "/exit",
    argument: "",
    help: "end the session (so do exit, quit and Ctrl-D)",
    run: (_argument, context) => context.exit(),
  },
];

/**
 * Where /export writes without a file name: the session's own folder, beside its file, not the
 * work tree, where an untracked page is easily committed by accident.
 */
function ownFolderPage(sessionPath: string, id: string): string {
  const folder = join(dirname(sessionPath), id);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return join(folder, `agentloop-${id}.html`);
}

export type ParsedInput =
  | { kind: "empty" }
  | { kind: "prompt"; text: string }
  | { kind: "command"; command: Command; argument: string }
  | { kind: "unknown"; name: string; hint: string };

const COMMAND_WORD = /^\/[A-Za-z][\w-]*$/;

/** The REPL's commands and those the session's parts add, before /exit, which stays last. */
export function commandsOf(parts: readonly SessionPart[]): Command[] {
  const added = parts
    .flatMap((part) => part.commands ?? [])
    .map(
      (command): Command => ({
        ...command,
        async run(argument, context) {
          context.print(await command.run(argument));
        },
      }),
    );
  return [...COMMANDS.slice(0, -1), ...added, ...COMMANDS.slice(-1)];
}

export function parseInput(text: string, commands: readonly Command[] = COMMANDS): ParsedInput {
  const trimmed = text.trim();
  if (trimmed === "") return { kind: "empty" };
  if (EXIT_WORDS.has(trimmed))
    return { kind: "command", command: commandNamed("/exit"), argument: "" };
  const [word = ""] = trimmed.split(/\s/, 1);
  if (!COMMAND_WORD.test(word)) return { kind: "prompt", text: trimmed };
  const command = commands.find((candidate) => candidate.name === word);
  if (!command) {
    return { kind: "unknown", name: word, hint: `Unknown command ${word}; /help lists them.` };
  }
  return { kind: "command", command, argument: trimmed.slice(word.length).trim() };
}

/** Readline's completer: command names, then the argument of a command that completes one. */
export function completeInput(line: string, sources: CompletionSources): [string[], string] {
  if (!line.startsWith("/")) return [[], line];
  const space = line.search(/\s/);
  if (space === -1) {
    const names = [...COMMANDS.map((command) => command.name), ...sources.moreCommands()];
    return [[...new Set(names)].filter((name) => name.startsWith(line)), line];
  }
  const command = COMMANDS.find((candidate) => candidate.name === line.slice(0, space));
  const prefix = line.slice(space).trimStart();
  return [command?.complete?.(prefix, sources) ?? [], prefix];
}

function usage(command: Command): string {
  return command.argument ? `${command.name} ${command.argument}` : command.name;
}

function commandNamed(name: string): Command {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) throw new Error(`no command ${name}`);
  return command;
}

function switchSession(context: CommandContext, id: string | undefined): void {
  const { sessionPath, notices } = context.controls.switchSession(id);
  context.sessionPath = sessionPath;
  for (const notice of notices) context.print(`agentloop: ${notice}`);
}
