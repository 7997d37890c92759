// The tools every session is built on, s01's bash and s02's file tools, under the permission
// mode: the sandbox each mode runs commands in (proven when the mode is first used; in ask mode
// the read-only one, for the commands that go unasked), the mode switch plan mode drives, the
// permission check, and a fresh set for each subagent.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import type { PermissionMode } from "../core/permission-mode.js";
import type { Tool } from "../core/tool.js";
import { createModeSwitch, type ModeSwitch } from "../permissions/mode-switch.js";
import { isReadOnlyCommand, sandboxFor } from "../permissions/policy.js";
import type { Sandbox, SandboxOptions } from "../sandbox/sandbox.js";
import { checkSandbox, createSandbox } from "../sandbox/select.js";
import { type BashOptions, createBashTool } from "../tools/bash.js";
import { createEditTool } from "../tools/edit.js";
import { createFileReads, type FileReads } from "../tools/file-reads.js";
import { createReadTool } from "../tools/read.js";
import type { ToolName } from "../tools/tool-set.js";
import { createWriteTool } from "../tools/write.js";

/** The built-in tools' names: bash (s01), read, write and edit (s02). */
const BUILT_IN = ["bash", "read", "write", "edit"] as const;
type BuiltInName = (typeof BUILT_IN)[number];

export interface BuiltInSetup {
  cwd: string;
  mode: PermissionMode;
  allowNetwork: boolean;
  /** The tools chosen (--tools, the settings' "tools", or the default set). */
  names: readonly ToolName[];
  /** Where the scratch directory for sandboxed commands goes (agentloop's state directory). */
  stateDirectory: string;
  /** The mode may change while the session runs (a person can enter plan mode). */
  switchable: boolean;
  /** The person's `"sandbox": {"writableGitDir": true}`: sandboxed commands may write .git. */
  writableGitDir: boolean;
  /** What bash is told of secrets: the API key's variable, and how to redact values. */
  secretNames: string[];
  redact: (text: string) => string;
  /** bash's run_in_background starts a task here (src/background/); absent, bash has none. */
  startBackground?: BashOptions["startBackground"];
}

export interface BuiltInTools {
  /** The permission mode, which /plan and exit_plan_mode change. */
  modes: ModeSwitch;
  /** Resolves once the starting mode's sandbox is proven; rejects with a ConfigError if it fails. */
  ready: Promise<void>;
  /** The session's chosen built-in tools, in the order of TOOL_NAMES. */
  tools: readonly Tool[];
  /** A write tool for plan mode's plan file when `write` was not chosen; null when it was. */
  planWrite: Tool | null;
  /** The scratch directory sandboxed commands share, when a mode with a sandbox may be used. */
  scratch: string | undefined;
  /**
   * Whether ask mode's unasked commands run in the read-only sandbox: once `ready`, false only
   * where that sandbox cannot start (then the permission check asks about git).
   */
  readOnlySandboxed(): boolean;
  /**
   * A child's own bash, read, write and edit under `mode`, its sandbox proven first; with
   * `workspace` (a child's git worktree) they work there, and so does its sandbox.
   */
  childBuiltIns(mode: PermissionMode, workspace?: string): Promise<Tool[]>;
  dispose(): void;
}

/** Ready at once but for the sandbox's trial run, which `ready` waits for. */
export function createBuiltInTools(setup: BuiltInSetup): BuiltInTools {
  const { cwd, mode } = setup;
  let scratch: string | undefined;
  // Made when a mode with a sandbox may be used: at once, or when a subagent's mode first needs it.
  const scratchDirectory = () => {
    if (scratch) return scratch;
    // Outside /tmp, which the sandbox replaces, so it is visible inside at the same path.
    const scratchRoot = join(setup.stateDirectory, "scratch");
    mkdirSync(scratchRoot, { recursive: true, mode: 0o700 });
    scratch = mkdtempSync(join(scratchRoot, "run-"));
    return scratch;
  };
  if (sandboxFor(mode) || mode === "ask" || setup.switchable) scratchDirectory();
  // The sandboxes proven so far, writable or not; a mode is used only once its sandbox is here.
  const sandboxes = new Map<boolean, Sandbox>();
  const sandboxOptions = (workspace: string, writable: boolean): SandboxOptions => ({
    workspace,
    writable,
    allowNetwork: setup.allowNetwork,
    tmpDir: scratchDirectory(),
    writableGitDir: setup.writableGitDir,
  });
  // Whether ask mode tried its sandbox already: where it cannot start, ask mode goes on without.
  let askTried = false;
  const prepare = async (next: PermissionMode) => {
    // Ask mode runs what it does not ask about in the read-only sandbox, where it can start.
    const forAsk = next === "ask" && !askTried;
    const shape = sandboxFor(next) ?? (forAsk ? { writable: false } : null);
    if (!shape || sandboxes.has(shape.writable)) return;
    askTried ||= forAsk;
    const sandbox = sandboxOptions(cwd, shape.writable);
    const check = await checkSandbox(sandbox);
    if (check.ok) sandboxes.set(shape.writable, createSandbox(sandbox));
    else if (!forAsk) throw new ConfigError(check.reason);
  };
  const modes = createModeSwitch(mode, prepare);
  /**
   * The sandbox `command` runs in under `mode`, of those `proven` (around the session's
   * workspace or a child's): the mode's own; in ask mode the read-only one for a command that
   * provably changes nothing (and for a warm shell, made before its command is known); else none.
   */
  const sandboxOf = (
    under: PermissionMode,
    command: string | undefined,
    proven: (writable: boolean) => Sandbox | undefined = (writable) => sandboxes.get(writable),
  ) => {
    const shape = sandboxFor(under);
    if (!shape) {
      const unasked = under === "ask" && (command === undefined || isReadOnlyCommand(command));
      return unasked ? (proven(false) ?? null) : null;
    }
    const sandbox = proven(shape.writable);
    // The mode changes only once its sandbox is proven: a command never runs outside it.
    if (!sandbox) throw new Error(`The ${under} mode's sandbox was not started.`);
    return sandbox;
  };
  const removeScratch = () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  };
  // Started at once, so that the sandbox's trial run overlaps the rest of start-up.
  const ready = prepare(mode).catch((error) => {
    removeScratch();
    throw error;
  });
  const bashOptions: BashOptions = {
    cwd,
    secretNames: setup.secretNames,
    redact: setup.redact,
    // The sandbox of the mode the command runs in, read at each command.
    wrap: (argv, context) =>
      sandboxOf(modes.current(), context.command)?.wrap(argv, context) ?? argv,
    // Only a mode's own sandbox: what a command in ask mode leaves running may be meant to.
    get endLeftovers() {
      return (
        sandboxFor(modes.current()) !== null &&
        sandboxOf(modes.current(), undefined)?.endsLeftovers === false
      );
    },
    tempDir: scratch,
    startBackground: setup.startBackground,
  };
  const make = (name: BuiltInName, bash: BashOptions, reads: FileReads, workspace = cwd): Tool => {
    switch (name) {
      case "bash": {
        const tool = createBashTool(bash);
        tool.isReadOnly = (input) => isReadOnlyCommand(input.command);
        return tool as Tool;
      }
      case "read":
        return createReadTool({ workspace, reads, redact: bash.redact }) as Tool;
      case "write":
        return createWriteTool({ workspace, reads }) as Tool;
      case "edit":
        return createEditTool({ workspace, reads }) as Tool;
    }
  };
  const chosen = BUILT_IN.filter((name) => setup.names.includes(name));
  const reads = createFileReads();
  const tools = chosen.map((name) => make(name, bashOptions, reads));
  return {
    modes,
    ready,
    tools,
    planWrite: chosen.includes("write") ? null : make("write", bashOptions, reads),
    scratch,
    readOnlySandboxed: () => sandboxes.has(false),
    // Each child gets tools of its own (its shell's directory, its reads), under its mode: the
    // session's sandbox for that mode, proven once, and no background tasks of its own.
    async childBuiltIns(under, workspace = cwd) {
      await prepare(under);
      // The same kinds of sandbox, proven above, around the child's own tree.
      const own = new Map<boolean, Sandbox>();
      const proven = (writable: boolean) => {
        const shared = sandboxes.get(writable);
        if (!shared || workspace === cwd) return shared;
        const made = own.get(writable) ?? createSandbox(sandboxOptions(workspace, writable));
        own.set(writable, made);
        return made;
      };
      const modeSandbox = sandboxFor(under) ? sandboxOf(under, undefined, proven) : null;
      const bash: BashOptions = {
        ...bashOptions,
        cwd: workspace,
        wrap: (argv, context) =>
          sandboxOf(under, context.command, proven)?.wrap(argv, context) ?? argv,
        endLeftovers: modeSandbox ? !modeSandbox.endsLeftovers : false,
        tempDir: scratch,
        startBackground: undefined,
      };
      const childReads = createFileReads();
      return chosen.map((name) => make(name, bash, childReads, workspace));
    },
    dispose: removeScratch,
  };
}
