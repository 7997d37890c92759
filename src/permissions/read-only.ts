// Which programs are known not to change anything, and with which arguments. A command is
// read-only only when it is listed here; everything unknown may write.

import type { Word } from "../shell/syntax.js";

type ArgumentCheck = (args: string[]) => boolean;

const anyArguments: ArgumentCheck = () => true;
const without =
  (forbidden: RegExp): ArgumentCheck =>
  (args) =>
    !args.some((arg) => forbidden.test(arg));
const positionals = (args: string[]) => args.filter((arg) => !arg.startsWith("-"));

const READ_ONLY: Record<string, ArgumentCheck> = {
  ":": anyArguments,
  "[": anyArguments,
  arch: anyArguments,
  basename: anyArguments,
  cat: anyArguments,
  cd: anyArguments,
  cksum: anyArguments,
  cmp: anyArguments,
  column: anyArguments,
  comm: anyArguments,
  // Only `command -v NAME` gets here: `command ls` is looked through as a wrapper.
  command: anyArguments,
  cut: anyArguments,
  df: anyArguments,
  diff: anyArguments,
  dirname: anyArguments,
  du: anyArguments,
  echo: anyArguments,
  egrep: anyArguments,
  env: anyArguments,
  expand: anyArguments,
  false: anyArguments,
  fgrep: anyArguments,
  file: anyArguments,
  fold: anyArguments,
  free: anyArguments,
  getconf: anyArguments,
  grep: anyArguments,
  groups: anyArguments,
  head: anyArguments,
  hexdump: anyArguments,
  id: anyArguments,
  jq: anyArguments,
  less: anyArguments,
  locale: anyArguments,
  ls: anyArguments,
  md5sum: anyArguments,
  more: anyArguments,
  nl: anyArguments,
  nproc: anyArguments,
  od: anyArguments,
  paste: anyArguments,
  printenv: anyArguments,
  ps: anyArguments,
  pwd: anyArguments,
  readlink: anyArguments,
  realpath: anyArguments,
  rev: anyArguments,
  seq: anyArguments,
  sha1sum: anyArguments,
  sha256sum: anyArguments,
  sha512sum: anyArguments,
  sleep: anyArguments,
  stat: anyArguments,
  strings: anyArguments,
  tac: anyArguments,
  tail: anyArguments,
  test: anyArguments,
  tr: anyArguments,
  true: anyArguments,
  type: anyArguments,
  uname: anyArguments,
  unexpand: anyArguments,
  uptime: anyArguments,
  wc: anyArguments,
  whereis: anyArguments,
  which: anyArguments,
  whoami: anyArguments,
  date: (args) => !args.some((arg) => /^(-s|--set)/.test(arg) || /^\d/.test(arg)),
  fd: without(/^(-x|-X|--exec|--exec-batch)/),
  find: without(/^-(delete|fprint0?|fprintf|fls)$/),
  git: gitIsReadOnly,
  hostname: (args) => positionals(args).length === 0,
  printf: without(/^-v/),
  rg: without(/^--pre(=|$)/),
  sed: sedIsReadOnly,
  sort: without(/^(-o|--output|--compress-program)/),
  tree: without(/^-o/),
  uniq: (args) => positionals(args).length <= 1,
  xxd: (args) => !args.includes("-r") && positionals(args).length <= 1,
};

/** True when `argv` (a command with its wrappers removed) cannot change anything. */
export function isReadOnlyProgram(argv: Word[]): boolean {
  const values = argv.map((word) => word.value);
  const [name, ...args] = values;
  if (!name || name.includes("/")) return false;
  const check = READ_ONLY[name];
  if (!check) return false;
  const known = args.filter((arg): arg is string => arg !== null);
  // A word only known at run time could be any option, so only option-free programs allow one.
  return (known.length === args.length || check === anyArguments) && check(known);
}

const GIT_READ_ONLY = new Set([
  "blame",
  "cat-file",
  "check-attr",
  "check-ignore",
  "count-objects",
  "describe",
  "diff",
  "diff-files",
  "diff-index",
  "diff-tree",
  "for-each-ref",
  "grep",
  "log",
  "ls-files",
  "ls-remote",
  "ls-tree",
  "merge-base",
  "name-rev",
  "rev-list",
  "rev-parse",
  "shortlog",
  "show",
  "show-ref",
  "status",
  "version",
  "whatchanged",
]);

/** True when git's arguments (after its global options) ask only to read. */
export function gitIsReadOnly(args: string[]): boolean {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === "--version" || subcommand === "--help") {
    return true;
  }
  // --output writes a file; grep -O opens a pager program.
  if (rest.some((arg) => /^(--output|-O|--open-files-in-pager)/.test(arg))) return false;
  if (GIT_READ_ONLY.has(subcommand)) return true;
  const [first] = rest;
  switch (subcommand) {
    case "branch":
      return rest.every((arg) =>
        /^(-[avrl]+|-vv|--list|--all|--remotes|--show-current|--verbose|--(no-)?(merged|contains)|--(sort|format|points-at|color)(=.*)?)$/.test(
          arg,
        ),
      );
    case "tag":
      return first === undefined || first === "-l" || first === "--list";
    case "remote":
      return first === undefined || first === "-v" || first === "get-url" || first === "show";
    case "stash":
      return first === "list" || first === "show";
    case "worktree":
      return first === "list";
    case "config":
      return rest.some((arg) => /^(--get|--get-all|--get-regexp|--list|-l|get|list)$/.test(arg));
    case "reflog":
      return first === undefined || first === "show";
    default:
      return false;
  }
}

/** Print, delete and substitute commands only: no `w`, `e` or `r`, which write or run. */
function sedIsReadOnly(args: string[]): boolean {
  const scripts: string[] = [];
  const hasExpressionOption = args.some((arg) => /^(-[nErsuz]*e|--expression)/.test(arg));
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (/^(-[nErsuz]*e|--expression)$/.test(arg)) {
      scripts.push(args[index + 1] ?? "");
      index += 1;
    } else if (arg.startsWith("--expression=")) {
      scripts.push(arg.slice("--expression=".length));
    } else if (arg.startsWith("-") && arg !== "-") {
      if (!/^(-[nErsuz]+|--(quiet|silent|regexp-extended|debug|posix|separate))$/.test(arg)) {
        return false;
      }
    } else if (!hasExpressionOption && scripts.length === 0) {
      scripts.push(arg);
    }
  }
  return scripts.every((script) => script.split(/[;\n]/).every(isPlainSedCommand));
}

const SED_ADDRESS = /^\s*((\d+|\$|\/[^/]*\/)(,(\d+|\$|\/[^/]*\/))?)?\s*!?\s*/;

function isPlainSedCommand(command: string): boolean {
  const rest = command.replace(SED_ADDRESS, "");
  if (/^[pdq=]?\s*$/.test(rest)) return true;
  const delimiter = rest[1];
  if (rest[0] !== "s" || !delimiter || /[\s\\]/.test(delimiter)) return false;
  let seen = 0;
  let index = 2;
  for (; index < rest.length && seen < 2; index += 1) {
    if (rest[index] === "\\") index += 1;
    else if (rest[index] === delimiter) seen += 1;
  }
  return seen === 2 && /^[gpiI0-9]*\s*$/.test(rest.slice(index));
}
