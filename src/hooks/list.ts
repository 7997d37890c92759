// What the REPL's /hooks shows: the hooks in force, grouped by the file each comes from, and
// the project's hooks that are not run until approved.

import { DEFAULT_TIMEOUT_SECONDS, type HookDefinition } from "./config.js";
import { describeHook } from "./trust.js";

export function hooksReport(
  running: readonly HookDefinition[],
  skipped: readonly HookDefinition[],
): string {
  if (running.length + skipped.length === 0) {
    return 'No hooks. Add them under "hooks" in your settings or the project\'s (docs/hooks.md).';
  }
  const lines: string[] = [];
  for (const [file, hooks] of byFile(running)) {
    const whose = hooks[0]?.source === "user" ? "your settings" : "the project, approved";
    lines.push(`From ${file} (${whose}):`, ...hooks.map((hook) => `  ${hookLine(hook)}`));
  }
  for (const [file, hooks] of byFile(skipped)) {
    lines.push(
      `Not run, from ${file} (the project's, not approved):`,
      ...hooks.map((hook) => `  ${hookLine(hook)}`),
    );
  }
  return lines.join("\n");
}

function hookLine(hook: HookDefinition): string {
  const extras = [
    ...(hook.timeoutSeconds === DEFAULT_TIMEOUT_SECONDS
      ? []
      : [`timeout ${hook.timeoutSeconds} s`]),
    ...(hook.onFailure === "block" ? ["fails closed"] : []),
  ];
  return extras.length > 0 ? `${describeHook(hook)} (${extras.join(", ")})` : describeHook(hook);
}

function byFile(hooks: readonly HookDefinition[]): Map<string, HookDefinition[]> {
  const files = new Map<string, HookDefinition[]>();
  for (const hook of hooks) files.set(hook.file, [...(files.get(hook.file) ?? []), hook]);
  return files;
}
