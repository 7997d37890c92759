// Runs a program to completion without blocking this process (fake servers live here too),
// collecting its output and exit code.

import { type ChildProcess, spawn } from "node:child_process";

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ProcessOptions {
  env: Record<string, string>;
  cwd: string;
  input?: string;
  onSpawn?: (child: ChildProcess) => void;
}

export function runProcess(
  program: string,
  args: string[],
  options: ProcessOptions,
): Promise<ProcessRun> {
  return new Promise((done) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdin.end(options.input ?? "");
    options.onSpawn?.(child);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}
