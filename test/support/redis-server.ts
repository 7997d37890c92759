// A real redis-server for the queue tests, on a free port, keeping nothing on disk: started
// by the test and stopped after it. `.ci/run` installs redis-server; no daemon is needed.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closedPort } from "./closed-port.js";

export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), "agentloop-redis-"));
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  await new Promise<void>((ready, failed) => {
    server.on("error", failed);
    server.on("exit", (code) => failed(new Error(`redis-server exited with ${code}: ${output}`)));
    server.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) ready();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
