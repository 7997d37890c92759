// Spawns a bash script through a sandbox's wrap(), the way the bash tool does, and collects
// what it printed and how it ended.

import { spawn } from "node:child_process";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

export interface Finished {
  code: number | null;
  output: string;
}

export function runWrapped(sandbox: Sandbox, script: string, cwd: string): Promise<Finished> {
  const [program, ...args] = sandbox.wrap(["bash", "--noprofile", "--norc", "-c", script], { cwd });
  const child = spawn(program as string, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
