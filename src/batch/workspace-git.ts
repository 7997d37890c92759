// Runs git for an attempt's workspace: its arguments as a list, its output as text, and a
// failure as a WorkspaceError naming the command and git's last word (a `workspace` error).

import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export class WorkspaceError extends Error {
  override name = "WorkspaceError";
}

export async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run("git", args, {
      cwd,
      env: env ?? process.env,
      maxBuffer: 1024 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    const reason = (stderr || message).trim().split("\n").at(-1);
    throw new WorkspaceError(`git ${args[0]} failed: ${reason}`);
  }
}
