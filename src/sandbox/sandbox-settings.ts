// `"sandbox": {"writableGitDir": true}`: lets sandboxed commands write the git directory of the
// workspace's repository (git add, commit, stash, branch...), which otherwise stays read-only.
// Read from the person's own settings only: a repository's .agentloop/settings.json must not
// open its own .git to the commands that could plant what git runs there.

import { ConfigError } from "../core/errors.js";
import { isRecord, readUserOnlyKey } from "../core/settings.js";

export interface SandboxSettings {
  writableGitDir: boolean;
  /** A sentence for the person when the project's settings tried to set "sandbox", else null. */
  ignored: string | null;
}

export async function readSandboxSettings(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<SandboxSettings> {
  const lets = "open the repository's .git to sandboxed commands";
  const { value, file, ignored } = await readUserOnlyKey(workspace, env, "sandbox", lets);
  return { writableGitDir: writableGitDirIn(value, file), ignored };
}

function writableGitDirIn(sandbox: unknown, file: string): boolean {
  if (sandbox === undefined) return false;
  const writable = isRecord(sandbox) ? (sandbox.writableGitDir ?? false) : null;
  if (typeof writable !== "boolean") {
    throw new ConfigError(
      `"sandbox" in ${file} must be an object whose "writableGitDir" is true or false.`,
    );
  }
  return writable;
}
