// Looks through commands that run other commands (`env`, `xargs`, `sh -c`, `find -exec`,
// `timeout`, `eval`, ...) so the rules see what really runs: `xargs rm -rf` is an `rm`, and
// `sh -c "ls; rm -rf ~"` is an `ls` and an `rm`. `git -C dir` is normalised to plain `git`.

import { basename, resolve } from "node:path";
import { changesHowCommandsRun, parseShell } from "../shell/parse.js";
import type { Hazard, Redirect, SimpleCommand, Word } from "../shell/syntax.js";

/** A command that runs, after every wrapper around it has been looked through. */
export interface CommandPart {
  argv: Word[];
  redirects: Redirect[];
  /** The wrappers it was found in, outermost first; deny and ask rules apply to them too. */
  via: Word[][];
  /** Where a wrapper moved it (`git -C`, `env -C`): a path, or null when unknown. */
  cwd?: string | null;
  /** Why the command it runs cannot be known (`sh -c "$x"`, `eval $x`). */
  opaque?: string;
  /** An option or variable that changes what the command does (`git -c`, `env PATH=`). */
  reconfigured?: string;
}

export interface LookedThrough {
  parts: CommandPart[];
  hazards: Hazard[];
}

type Unwrapped =
  | { kind: "self"; argv?: Word[]; cwd?: string | null; reconfigured?: string }
  | { kind: "wrapped"; argv: Word[]; cwd?: string | null; reconfigured?: string }
  | { kind: "script"; script: string }
  | { kind: "opaque"; why: string }
  | { kind: "find"; own: Word[]; execs: { argv: Word[]; cwd?: null }[] };

const MAX_DEPTH = 8;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"]);
/** Stands for the arguments xargs reads from its input. */
const XARGS_INPUT: Word = { text: "<input of xargs>", value: null };

export function lookThrough(command: SimpleCommand): LookedThrough {
  const hazards: Hazard[] = [];
  const parts = expand(command.words, { redirects: command.redirects, via: [] }, 0, hazards);
  return { parts, hazards };
}

/** The program name a word runs, without its directory (`/bin/rm` is `rm`). */
export function programName(word: Word | undefined): string | null {
  return word?.value ? basename(word.value) : null;
}

function expand(
  argv: Word[],
  base: Omit<CommandPart, "argv">,
  depth: number,
  hazards: Hazard[],
): CommandPart[] {
  if (depth > MAX_DEPTH) return [{ ...base, argv, opaque: "it nests wrappers too deeply" }];
  const unwrapped = unwrap(argv);
  const moved = (change: { cwd?: string | null; reconfigured?: string }) => ({
    cwd: joinCwd(base.cwd, change.cwd),
    reconfigured: change.reconfigured ?? base.reconfigured,
  });
  // What a command found inside this one inherits: its redirections, place and wrappers.
  const within = (change: { cwd?: string | null; reconfigured?: string }) => ({
    ...base,
    ...moved(change),
    via: [...base.via, argv],
  });
  switch (unwrapped.kind) {
    case "self":
      return [{ ...base, ...moved(unwrapped), argv: unwrapped.argv ?? argv }];
    case "wrapped":
      return expand(unwrapped.argv, within(unwrapped), depth + 1, hazards);
    case "opaque":
      return [{ ...base, argv, opaque: unwrapped.why }];
    case "script": {
      const parsed = parseShell(unwrapped.script);
      if (parsed.kind === "unparsable") return [{ ...base, argv, opaque: parsed.reason }];
      hazards.push(...parsed.hazards);
      return parsed.commands.flatMap((command) => {
        const redirects = [...base.redirects, ...command.redirects];
        return expand(command.words, { ...within({}), redirects }, depth + 1, hazards);
      });
    }
    case "find":
      return [
        { ...base, argv: unwrapped.own },
        ...unwrapped.execs.flatMap((exec) => expand(exec.argv, within(exec), depth + 1, hazards)),
      ];
  }
}

function joinCwd(outer: string | null | undefined, inner: string | null | undefined) {
  if (inner === undefined) return outer;
  if (outer === null || inner === null) return null;
  return outer === undefined ? inner : resolve(outer, inner);
}

function unwrap(argv: Word[]): Unwrapped {
  const name = programName(argv[0]);
  const args = argv.slice(1);
  if (!name) return { kind: "self" };
  if (SHELLS.has(name)) return shellWrapper(args);
  switch (name) {
    case "env":
      return envWrapper(args);
    case "xargs":
      return xargsWrapper(args);
    case "find":
      return findWrapper(argv);
    case "git":
      return gitGlobalOptions(args);
    case "eval":
      return args.every((word) => word.value !== null)
        ? { kind: "script", script: args.map((word) => word.value).join(" ") }
        : { kind: "opaque", why: "eval runs text that is only known when it runs" };
    case "nice":
      return skipOptions(args, { valued: ["-n", "--adjustment"], flags: /^-\d+$/ });
    case "nohup":
      return skipOptions(args, {});
    case "time":
      return skipOptions(args, { flags: /^-p$/ });
    case "command":
      if (args[0]?.value === "-v" || args[0]?.value === "-V") return { kind: "self" };
      return skipOptions(args, { flags: /^-p$/ });
    case "exec":
      return skipOptions(args, { valued: ["-a"], flags: /^-[cl]+$/ });
    case "stdbuf":
      return skipOptions(args, { valued: ["-i", "-o", "-e"], flags: /^-[ioe]./ });
    case "setsid":
      return skipOptions(args, { flags: /^(-[cfw]+|--ctty|--fork|--wait)$/ });
    case "ionice":
      return skipOptions(args, { valued: ["-c", "-n"], flags: /^(-t|-c\d|-n\d)$/ });
    case "timeout": {
      const rest = skipOptions(args, {
        valued: ["-s", "--signal", "-k", "--kill-after"],
        flags: /^(--preserve-status|--foreground|-v|--verbose)$/,
      });
      // The first word after the options is the duration.
      return rest.kind === "wrapped" ? wrappedOrSelf(rest.argv.slice(1)) : rest;
    }
    default:
      return { kind: "self" };
  }
}

function wrappedOrSelf(
  argv: Word[],
  extra: { cwd?: string | null; reconfigured?: string } = {},
): Unwrapped {
  return argv.length > 0 ? { kind: "wrapped", argv, ...extra } : { kind: "self", ...extra };
}

interface OptionSyntax {
  /** Options that take the next word as their value (or `--opt=value`). */
  valued?: string[];
  /** Options that take no value. */
  flags?: RegExp;
}

/** Skips a wrapper's options; the rest is the command it runs. */
function skipOptions(args: Word[], syntax: OptionSyntax): Unwrapped {
  let index = 0;
  while (index < args.length) {
    const word = args[index]?.value;
    if (word === null || word === undefined) return unknownOption(args[index]);
    if (word === "--") return wrappedOrSelf(args.slice(index + 1));
    if (!word.startsWith("-") || word === "-") break;
    const valued = syntax.valued?.find(
      (option) => word === option || word.startsWith(`${option}=`),
    );
    if (valued) index += word === valued ? 2 : 1;
    else if (syntax.flags?.test(word)) index += 1;
    else return unknownOption(args[index]);
  }
  return wrappedOrSelf(args.slice(index));
}

function unknownOption(word: Word | undefined): Unwrapped {
  return { kind: "opaque", why: `its option ${word?.text ?? "?"} is not understood` };
}

function envWrapper(args: Word[]): Unwrapped {
  let index = 0;
  let cwd: string | null | undefined;
  let reconfigured: string | undefined;
  while (index < args.length) {
    const word = args[index]?.value;
    if (word === null || word === undefined) return unknownOption(args[index]);
    const assigned = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word)?.[1];
    if (assigned) {
      if (changesHowCommandsRun(assigned)) reconfigured = word;
      index += 1;
    } else if (word === "-C" || word === "--chdir") {
      cwd = args[index + 1]?.value ?? null;
      index += 2;
    } else if (word.startsWith("--chdir=")) {
      cwd = word.slice("--chdir=".length);
      index += 1;
    } else if (word === "-S" || word === "--split-string" || word.startsWith("--split-string=")) {
      const rest = word.startsWith("--split-string=")
        ? [{ text: word, value: word.slice("--split-string=".length) }, ...args.slice(index + 1)]
        : args.slice(index + 1);
      if (rest.some((part) => part.value === null)) return unknownOption(args[index]);
      return { kind: "script", script: rest.map((part) => part.value).join(" ") };
    } else if (word === "-u" || word === "--unset") {
      index += 2;
    } else if (/^(-[i0v]+|-u.+|--unset=.*|--ignore-environment|--null|--debug)$/.test(word)) {
      index += 1;
    } else if (word === "--") {
      index += 1;
      break;
    } else if (word.startsWith("-")) {
      return unknownOption(args[index]);
    } else {
      break;
    }
  }
  return wrappedOrSelf(args.slice(index), { cwd, reconfigured });
}

function xargsWrapper(args: Word[]): Unwrapped {
  const valued = ["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args"];
  valued.push("-P", "--max-procs", "-s", "--max-chars", "--process-slot-var");
  const rest = skipOptions(args, {
    valued,
    flags:
      /^(-[0rtpxo]+|-[ndPLsIEaei].+|--null|--no-run-if-empty|--verbose|--interactive|--exit|--open-tty|--replace(=.*)?|--eof(=.*)?|--max-lines(=.*)?)$/,
  });
  if (rest.kind === "self") {
    return { kind: "wrapped", argv: [{ text: "echo", value: "echo" }, XARGS_INPUT] };
  }
  return rest.kind === "wrapped" ? { ...rest, argv: [...rest.argv, XARGS_INPUT] } : rest;
}

/** How a shell is told what to run: `-c SCRIPT`, a script file, or its standard input. */
export type ShellSource =
  | { kind: "command"; script: Word | null }
  | { kind: "file"; file: Word }
  | { kind: "stdin" };

export function shellSource(args: Word[]): ShellSource {
  let commandMode = false;
  let index = 0;
  for (; index < args.length; index += 1) {
    const word = args[index]?.value ?? "";
    if (word === "--") {
      index += 1;
      break;
    }
    if (/^[-+][oO]$/.test(word)) index += 1;
    else if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) commandMode = true;
    else if (word === "-s") return { kind: "stdin" };
    else if (!/^(--[a-z-]+|[-+][a-zA-Z]+)$/.test(word)) break;
  }
  const next = args[index];
  if (commandMode) return { kind: "command", script: next ?? null };
  return next ? { kind: "file", file: next } : { kind: "stdin" };
}

function shellWrapper(args: Word[]): Unwrapped {
  const source = shellSource(args);
  if (source.kind !== "command") return { kind: "self" };
  const script = source.script?.value;
  if (script === null || script === undefined) {
    return { kind: "opaque", why: "the script it runs is only known when it runs" };
  }
  return { kind: "script", script };
}

const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function findWrapper(argv: Word[]): Unwrapped {
  const own: Word[] = [];
  const execs: { argv: Word[]; cwd?: null }[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index] as Word;
    if (!FIND_ACTIONS.has(word.value ?? "")) {
      own.push(word);
      continue;
    }
    const end = argv.findIndex(
      (candidate, at) => at > index && (candidate.value === ";" || candidate.value === "+"),
    );
    if (end < 0) return { kind: "opaque", why: `its ${word.text} has no terminating ";"` };
    // `{}` stands for each file found: only known when it runs.
    const exec = argv
      .slice(index + 1, end)
      .map((arg) => (arg.value?.includes("{}") ? { text: arg.text, value: null } : arg));
    // -execdir runs in each found file's directory.
    execs.push(word.value?.endsWith("dir") ? { argv: exec, cwd: null } : { argv: exec });
    index = end;
  }
  return { kind: "find", own, execs };
}

function gitGlobalOptions(args: Word[]): Unwrapped {
  let cwd: string | null | undefined;
  let reconfigured: string | undefined;
  let index = 0;
  for (; index < args.length; index += 1) {
    const word = args[index]?.value;
    if (word === null || word === undefined) return unknownOption(args[index]);
    if (word === "-C") {
      cwd = joinCwd(cwd, args[index + 1]?.value ?? null);
      index += 1;
    } else if (word === "-c" || word === "--config-env" || word === "--exec-path") {
      reconfigured = `git ${word}`;
      index += word === "--exec-path" ? 0 : 1;
    } else if (/^--(config-env|exec-path)=/.test(word)) {
      reconfigured = `git ${word}`;
    } else if (word === "--git-dir" || word === "--work-tree" || word === "--namespace") {
      index += 1;
    } else if (!/^(-[pP]|--[a-z-]+(=.*)?)$/.test(word)) {
      break;
    }
  }
  const argv = [{ text: "git", value: "git" }, ...args.slice(index)];
  return { kind: "self", argv, cwd, reconfigured };
}
