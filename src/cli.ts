// The agentloop command: parse the command line, build a session, and hand it to the REPL or
// to one-shot mode. Every error a user can cause ends here as one sentence and an exit code.

import { readFileSync } from "node:fs";
import { endWithParent } from "./batch/parent-watch.js";
import {
  type CommandLine,
  parseCommandLine,
  type RunOptions,
  USAGE,
} from "./command-line/config.js";
import { runOneShot } from "./command-line/one-shot.js";
import { type SessionControls, startSession } from "./command-line/setup.js";
import { AGENTLOOP_BUILD } from "./core/build-info.js";
import { ConfigError } from "./core/errors.js";
import { EXIT, isConfigurationError } from "./core/exit-codes.js";
import { sessionLines } from "./repl/session-list.js";
import { listSessions, sessionsDirectory } from "./session/session-file.js";
import { ignoredNotice, invocationOf } from "./skills/invocation.js";
import { createProgress } from "./terminal/progress.js";
import { loadMarkdownRenderer } from "./terminal/render.js";
import { loadTextWidth } from "./terminal/text-width.js";
import { writeUsage, writeWrapped } from "./terminal/wrap.js";
import { inSessionWorktree, takeWorktreeFlag } from "./worktrees/session-worktree.js";

const VERSION = AGENTLOOP_BUILD.version;

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "batch") {
    const { runBatchCommand } = await import("./batch/batch-command.js");
    const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
    const agentArgv = [process.execPath, process.argv[1] as string];
    return runBatchCommand(argv.slice(1), { ...io, agentArgv }).catch(fail);
  }
  if (argv[0] === "memory") {
    const { runMemoryShellCommand } = await import("./memory/shell-command.js");
    const stdout = (text: string) => process.stdout.write(`${text}\n`);
    return runMemoryShellCommand({ argv: argv.slice(1), env: process.env, stdout }).catch(fail);
  }
  if (argv[0] === "rewind") {
    const { runRewindCommand } = await import("./checkpoints/rewind-command.js");
    const line = (stream: NodeJS.WriteStream) => (text: string) => stream.write(`${text}\n`);
    const io = { stdout: line(process.stdout), stderr: line(process.stderr), env: process.env };
    return Promise.resolve(argv.slice(1))
      .then((args) => runRewindCommand(args, { ...io, cwd: process.cwd() }))
      .catch(fail);
  }
  if (argv[0] === "plugin") {
    const { runPluginCommand } = await import("./plugins/plugin-command.js");
    const stdout = (line: string) => process.stdout.write(`${line}\n`);
    const io = { cwd: process.cwd(), env: process.env, stdout };
    return runPluginCommand(argv.slice(1), io).catch(fail);
  }
  if (argv[0] === "export") {
    const { runExportCommand } = await import("./export/export-command.js");
    const stdout = (text: string) => process.stdout.write(text);
    return Promise.resolve(argv.slice(1))
      .then((args) =>
        runExportCommand({
          argv: args,
          cwd: process.cwd(),
          sessionsDir: sessionsDirectory(),
          version: VERSION,
          stdout,
        }),
      )
      .catch(fail);
  }
  if (argv[0] === "worktree") {
    const { runWorktreeCommand } = await import("./worktrees/worktree-command.js");
    const stdout = (line: string) => process.stdout.write(`${line}\n`);
    const stderr = (line: string) => writeWrapped(process.stderr, line);
    return runWorktreeCommand({ argv: argv.slice(1), stdout, stderr }).catch(fail);
  }
  const { argv: rest, worktree } = takeWorktreeFlag(argv);
  let command: CommandLine;
  try {
    command = parseCommandLine(rest);
    if (worktree && command.command !== "run") {
      throw new ConfigError("--worktree starts a session, and goes with no other command.");
    }
  } catch (error) {
    return fail(error);
  }
  switch (command.command) {
    case "help":
      writeUsage(process.stdout, USAGE);
      return EXIT.done;
    case "version":
      process.stdout.write(`agentloop ${VERSION}\n`);
      return EXIT.done;
    case "sessions":
      return printSessions(command.cwd);
    case "view": {
      const { runViewCommand } = await import("./viewer/view-command.js");
      const stdout = (line: string) => process.stdout.write(`${line}\n`);
      return runViewCommand({ ...command, sessionsDir: sessionsDirectory(), stdout }).then(
        () => EXIT.done,
        fail,
      );
    }
    case "mcp-list": {
      const [{ runMcpList }, { componentSourcesOf, SESSION_PARTS }] = await Promise.all([
        import("./mcp/list-command.js"),
        import("./assembly/parts.js"),
      ]);
      const stdout = (line: string) => process.stdout.write(`${line}\n`);
      const where = { workspace: command.cwd, env: process.env };
      return componentSourcesOf(SESSION_PARTS, where)
        .then((sources) => runMcpList({ ...command, env: process.env, sources, stdout }))
        .catch(fail);
    }
    case "acp": {
      const { runAcpCommand } = await import("./acp/acp-command.js");
      return runAcpCommand(command, VERSION).catch(fail);
    }
    case "run": {
      if (!worktree) return run(command).catch(fail);
      const say = (line: string) => writeWrapped(process.stderr, `agentloop: ${line}`);
      const inWorktree = (cwd: string) => run({ ...command, cwd });
      const atRepl = !command.oneShot && process.stdin.isTTY === true;
      const ask = atRepl ? (await import("./terminal/ask-once.js")).askOnce : undefined;
      return inSessionWorktree(command.cwd, worktree, inWorktree, say, ask).catch(fail);
    }
  }
}

async function run(options: RunOptions): Promise<number> {
  const interactive = !options.oneShot && process.stdin.isTTY === true;
  const prompt = interactive ? undefined : (options.prompt ?? (await readStdin()));
  if (!interactive && !prompt) {
    throw new ConfigError(
      'No prompt: pass one as an argument (agentloop "task"), with -p, or on stdin.',
    );
  }
  // Markdown is rendered on a terminal only: load it while the session starts up (settings,
  // provider SDK, sandbox check), long before the model's first words arrive.
  const rendersMarkdown = interactive
    ? process.stdout.isTTY
    : options.outputFormat === "text" && process.stdout.isTTY && process.stderr.isTTY;
  if (rendersMarkdown) void loadMarkdownRenderer();
  const where = { cwd: options.cwd, sessionsDirectory: sessionsDirectory() };
  // The REPL (and readline) is loaded only for an interactive session.
  let moreCommands: string[] = [];
  const terminal = interactive
    ? (await import("./repl/terminal.js")).openReplTerminal({
        ...where,
        moreCommands: () => moreCommands,
      })
    : undefined;
  // One live line per terminal; a permission question holds it until it is answered.
  let controls: SessionControls | undefined;
  const progress = createProgress({
    output: process.stdout,
    enabled: terminal !== undefined && process.stdout.isTTY === true,
    color: !!process.stdout.isTTY,
    runningTasks: () => controls?.tasks.running().length ?? 0,
  });
  const started = await startSession(options, {
    readline: terminal?.readline,
    holdProgress: progress.hold,
  });
  const { session, sessionPath, notices } = started;
  controls = started.controls;
  for (const notice of notices) writeWrapped(process.stderr, `agentloop: ${notice}`);
  moreCommands = [
    ...session.parts.flatMap((part) => part.commands ?? []).map((command) => command.name),
    ...controls.skills.skills.map((skill) => `/${skill.name}`),
  ];

  if (terminal) {
    const color = !!process.stdout.isTTY;
    const { runRepl } = await import("./repl/repl.js");
    return runRepl({ session, controls, terminal, color, sessionPath, progress, ...where });
  }
  // `-p "/review src/app.ts"`: a skill or custom command, expanded, on the model it names.
  const invocation = invocationOf(prompt as string, controls.skills, controls.loadedSkills);
  const ignored = invocation && ignoredNotice(invocation.skill);
  if (ignored) writeWrapped(process.stderr, `agentloop: ${ignored}`);
  if (invocation?.skill.model) await controls.switchModel(invocation.skill.model);
  return runOneShot({
    session,
    controls,
    prompt: invocation?.prompt ?? (prompt as string),
    outputFormat: options.outputFormat,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}

function printSessions(cwd: string): number {
  const sessions = listSessions(sessionsDirectory(), cwd);
  if (sessions.length === 0) {
    process.stdout.write(`No sessions yet in ${cwd}.\n`);
    return EXIT.done;
  }
  for (const line of sessionLines(sessions)) process.stdout.write(`${line}\n`);
  return EXIT.done;
}

function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => resolve(readFileSync(0, "utf8").trim()));
}

function fail(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ConfigError || isConfigurationError(error as Error)) {
    writeWrapped(process.stderr, `agentloop: ${message}`);
    return EXIT.configError;
  }
  process.stderr.write(
    `agentloop: unexpected error: ${error instanceof Error ? error.stack : message}\n`,
  );
  return EXIT.runtimeError;
}

endWithParent(process.env);
// Text is measured only for a terminal: a run whose outputs are pipes skips loading the measures.
const atTerminal = process.stdout.isTTY === true || process.stderr.isTTY === true;
(atTerminal ? loadTextWidth() : Promise.resolve())
  .then(() => main(process.argv.slice(2)))
  .then(async (code) => {
    process.exitCode = code;
    // A pipe that its reader has not emptied holds the end of the output in Node's buffer, which
    // process.exit would drop: a stream-json consumer would get a cut line. Exit once it is out.
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    // Background children of bash commands are ended by the toolbox; nothing else may keep
    // the process alive once the session has closed.
    setImmediate(() => process.exit(code));
  });

/** Resolves when everything written to the stream so far has been handed to the system. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}
