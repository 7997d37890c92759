// The session's permission mode while it runs. It starts as the command line says; plan mode
// changes it: entered with /plan, left when the person approves the plan. Each change is made
// only once the new mode's sandbox has proven it starts here, and is announced once.

import type { PermissionMode } from "./policy.js";

export interface ModeSwitch {
  /** The mode the next tool call is judged by. */
  current(): PermissionMode;
  /**
   * Goes on in `mode`. Rejects, leaving the mode as it was, when the mode cannot work here
   * (its sandbox does not start): the error's message says why.
   */
  change(mode: PermissionMode): Promise<void>;
  /** Calls `listener` after each change, in the order the listeners were added. */
  onChange(listener: (mode: PermissionMode, previous: PermissionMode) => void): void;
}

/** `prepare` makes ready what a mode needs before it is used. */
export function createModeSwitch(
  initial: PermissionMode,
  prepare: (mode: PermissionMode) => Promise<void>,
): ModeSwitch {
  let mode = initial;
  const listeners: ((mode: PermissionMode, previous: PermissionMode) => void)[] = [];
  return {
    onChange(listener) {
      listeners.push(listener);
    },
    current: () => mode,
    async change(next) {
      if (next === mode) return;
      await prepare(next);
      const previous = mode;
      mode = next;
      for (const listener of listeners) listener(next, previous);
    },
  };
}
