// What the parts give the session's toolbox and compaction, put together in list order: the
// tools offered under the mode now, the hooks around each call, the paragraphs restated beside a
// summary and the steps before one.

import type { CompactionTrigger } from "../core/events.js";
import type { SessionPart } from "../core/part.js";
import type { PermissionMode } from "../core/permission-mode.js";
import type { Tool, ToolCallHooks } from "../core/tool.js";

/**
 * The session's tools: the built-in ones, then each part's for the mode now. The same array
 * until one of its pieces changes, as the toolbox asks.
 */
export function toolsOfParts(
  builtIn: readonly Tool[],
  parts: readonly SessionPart[],
  mode: () => PermissionMode,
): () => readonly Tool[] {
  let pieces: (readonly Tool[])[] = [];
  let all: readonly Tool[] = builtIn;
  return () => {
    const offer = { mode: mode(), forChild: false };
    const now = parts.map((part) => part.tools?.(offer) ?? []);
    if (now.length !== pieces.length || now.some((piece, index) => piece !== pieces[index])) {
      pieces = now;
      all = [...builtIn, ...now.flat()];
    }
    return all;
  };
}

/** Every part's hooks around a call, in list order before it and after it; undefined if none. */
export function chainToolHooks(parts: readonly SessionPart[]): ToolCallHooks | undefined {
  const chain = parts.flatMap((part) => (part.toolHooks ? [part.toolHooks] : []));
  if (chain.length <= 1) return chain[0];
  return {
    async beforeCall(call, signal, tool) {
      let input = call.input;
      let permission: Awaited<ReturnType<ToolCallHooks["beforeCall"]>> = {};
      for (const hooks of chain) {
        const said = await hooks.beforeCall({ ...call, input }, signal, tool);
        if ("block" in said) return said;
        input = said.input ?? input;
        permission = said.permission ? said : permission;
      }
      const changed = input !== call.input;
      return {
        ...(changed ? { input: input as Record<string, unknown> } : {}),
        ...("permission" in permission ? { permission: permission.permission } : {}),
      };
    },
    async afterCall(call, result, signal) {
      let after = result;
      for (const hooks of chain) after = await hooks.afterCall(call, after, signal);
      return after;
    },
  };
}

/** The parts' paragraphs beside a compaction's summary; null when none has any. */
export function restatedBy(parts: readonly SessionPart[]): string | null {
  const present = parts.flatMap((part) => part.restated?.() ?? []);
  return present.length > 0 ? present.join("\n\n") : null;
}

/** Every part's step before a summary, in list order; undefined when no part has one. */
export function beforeCompactOf(parts: readonly SessionPart[]) {
  const steps = parts.flatMap((part) => (part.beforeCompact ? [part.beforeCompact] : []));
  if (steps.length === 0) return undefined;
  return async (trigger: CompactionTrigger, focus: string | undefined, signal: AbortSignal) => {
    for (const step of steps) await step(trigger, focus, signal);
  };
}
