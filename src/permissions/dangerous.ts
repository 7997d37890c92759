// The built-in list of commands that lose work or harm the machine. "deny" is never run;
// "ask" needs a person's yes (auto mode, which cannot ask, refuses it). The sandbox is the wall;
// this list is the guard rail that explains itself before anything runs.

import { isHarmlessSink, type Word, wordsText, writtenTarget } from "../shell/syntax.js";
import { type PathContext, type Place, placeOf, worst } from "./paths.js";
import { type CommandPart, programName, shellSource } from "./wrappers.js";

export interface Finding {
  kind: "deny" | "ask";
  reason: string;
}

export interface DangerContext extends PathContext {
  /** Directories the script may have moved to with `cd` (null: only known at run time). */
  cwds: (string | null)[];
  /** Whether anything in the script downloads (curl, wget), for `curl ... | sh`. */
  downloads: boolean;
}

const OTHER_USER = new Set(["sudo", "doas", "su", "pkexec", "run0"]);
const DISK_TOOLS = /^(mkfs(\..+)?|mke2fs|mkswap|fdisk|sfdisk|cfdisk|gdisk|parted|wipefs)$/;
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const INTERPRETERS = new Set(["python", "python3", "perl", "ruby", "node"]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"]);
const DISK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|mapper|dm-|loop)/;

export function findDanger(part: CommandPart, context: DangerContext): Finding | null {
  const device = part.redirects.find((redirect) => {
    const target = writtenTarget(redirect)?.value;
    return target != null && DISK_DEVICE.test(target);
  });
  if (device) {
    return {
      kind: "deny",
      reason: `${JSON.stringify(device.text)} writes straight to a disk device`,
    };
  }

  const name = programName(part.argv[0]);
  const args = part.argv.slice(1);
  const values = args.map((word) => word.value ?? "");
  if (!name) return null;
  if (OTHER_USER.has(name)) return deny(part, "runs a command as another user");
  if (DISK_TOOLS.test(name)) return deny(part, "formats or partitions a disk");
  if (POWER.has(name)) return deny(part, "shuts down or restarts the machine");
  if (SHELLS.has(name)) return shellDanger(part, context);
  switch (name) {
    case "rm":
      return hasShortFlag(values, /[rR]/, "--recursive")
        ? deletion(part, operands(args), context)
        : null;
    case "find":
      return values.includes("-delete") ? deletion(part, findStartPaths(args), context) : null;
    case "chmod":
    case "chown":
    case "chgrp": {
      if (!hasShortFlag(values, /R/, "--recursive")) return null;
      const place = placeIn(operands(args).slice(1), part, context);
      return place === "outside" ? deny(part, "changes permissions outside the workspace") : null;
    }
    case "dd": {
      const output = values.find((value) => value.startsWith("of=/dev/"))?.slice(3);
      return output && !isHarmlessSink(output) ? deny(part, "writes straight to a device") : null;
    }
    case "systemctl":
      return values.some((value) => /^(poweroff|reboot|halt|kexec|suspend|hibernate)$/.test(value))
        ? deny(part, "shuts down or restarts the machine")
        : null;
    case "init":
    case "telinit":
      return values.some((value) => value === "0" || value === "6")
        ? deny(part, "shuts down or restarts the machine")
        : null;
    case "kill":
      return values.includes("-1") && values.some((value) => /^-(9|KILL|s)$/.test(value))
        ? deny(part, "kills every process you own")
        : null;
    case "source":
    case ".":
      return args[0]?.value === null && context.downloads
        ? deny(part, "runs a downloaded script")
        : null;
    case "git":
      return gitDanger(part, values);
    default:
      if (INTERPRETERS.has(name) && context.downloads && readsProgramFromStdin(values)) {
        return deny(part, "runs a downloaded script");
      }
      return null;
  }
}

function deny(part: CommandPart, why: string): Finding {
  return { kind: "deny", reason: `${quoted(part)} ${why}` };
}

function ask(part: CommandPart, why: string): Finding {
  return { kind: "ask", reason: `${quoted(part)} ${why}` };
}

export function quoted(part: CommandPart): string {
  return JSON.stringify(wordsText(part.argv));
}

function deletion(part: CommandPart, targets: Word[], context: DangerContext): Finding | null {
  switch (placeIn(targets, part, context)) {
    case "outside":
      return deny(part, "deletes recursively outside the workspace");
    case "workspace":
      return ask(part, "deletes the whole workspace");
    case "unknown":
      return ask(part, "deletes recursively a path that is only known when it runs");
    case "inside":
      return targets.some((target) => /(^|\/)\.git\/?$/.test(target.value ?? ""))
        ? ask(part, "deletes the repository's history (.git)")
        : null;
  }
}

function placeIn(targets: Word[], part: CommandPart, context: DangerContext): Place {
  const cwds = part.cwd === undefined ? context.cwds : [part.cwd];
  return worst(targets.map((target) => placeOf(target, cwds, context)));
}

function shellDanger(part: CommandPart, context: DangerContext): Finding | null {
  const source = shellSource(part.argv.slice(1));
  if (source.kind === "stdin") {
    return context.downloads
      ? deny(part, "runs a downloaded script")
      : ask(part, "runs its standard input as a shell script");
  }
  if (source.kind === "file" && source.file.value === null && context.downloads) {
    return deny(part, "runs a downloaded script");
  }
  return null;
}

function gitDanger(part: CommandPart, values: string[]): Finding | null {
  const [subcommand, ...rest] = values;
  const has = (pattern: RegExp) => rest.some((value) => pattern.test(value));
  switch (subcommand) {
    case "reset":
      return has(/^--(hard|merge|keep)$/) ? ask(part, "discards uncommitted changes") : null;
    case "clean":
      return hasShortFlag(rest, /f/, "--force") ? ask(part, "deletes untracked files") : null;
    case "push":
      return has(/^(-f|--force|--force-with-lease(=.*)?|--mirror|--delete|-d|\+.*|:.*)$/)
        ? ask(part, "overwrites or deletes history on the remote")
        : null;
    case "checkout":
      return has(/^(-f|--force|--|\.)$/) ? ask(part, "discards uncommitted changes") : null;
    case "restore":
      return has(/^(--staged|-S)$/) && !has(/^(--worktree|-W)$/)
        ? null
        : ask(part, "discards uncommitted changes");
    case "stash":
      return rest[0] === "drop" || rest[0] === "clear"
        ? ask(part, "deletes stashed changes")
        : null;
    case "branch":
      return has(/^(-D|--delete)$/) && has(/^(-D|-f|--force)$/)
        ? ask(part, "deletes a branch that may not be merged")
        : null;
    default:
      return null;
  }
}

/** True when a short-option group (`-rf`) holds the letter or the long form is present. */
function hasShortFlag(values: string[], letter: RegExp, long: string): boolean {
  const options = values.slice(0, endOfOptions(values));
  return options.some((value) => value === long || (/^-[^-]/.test(value) && letter.test(value)));
}

function endOfOptions(values: string[]): number {
  const end = values.indexOf("--");
  return end < 0 ? values.length : end;
}

/** The arguments that are not options (everything after `--` counts). */
function operands(args: Word[]): Word[] {
  const end = endOfOptions(args.map((word) => word.value ?? ""));
  return args.filter((word, index) => index > end || (index < end && !word.value?.startsWith("-")));
}

function findStartPaths(args: Word[]): Word[] {
  const end = args.findIndex((word) => /^[-(!]/.test(word.value ?? ""));
  const paths = end < 0 ? args : args.slice(0, end);
  return paths.length > 0 ? paths : [{ text: ".", value: "." }];
}

function readsProgramFromStdin(values: string[]): boolean {
  if (values.some((value) => /^-[ceEm]$/.test(value))) return false;
  const positional = values.filter((value) => !value.startsWith("-") || value === "-");
  return positional.length === 0 || positional[0] === "-";
}
