// Runs the built CLI (dist/cli.js) as a real subprocess against a fake model server, in a
// throwaway home and workspace, and collects what it printed and how it exited.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onTestFinished } from "vitest";
import { parseSession, type SessionContents } from "../../src/session.js";
import { type FakeAnthropic, type FakeTurn, startFakeAnthropic } from "./fake-anthropic-server.js";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.js";
import { type ProcessOptions, type ProcessRun, runProcess } from "./run-process.js";

export const CLI = resolve(import.meta.dirname, "../../dist/cli.js");

export type Protocol = "anthropic" | "openai";

export interface FakeModel {
  protocol: Protocol;
  url: string;
  /** Turns in the fake Anthropic server's shape; the OpenAI fake accepts the same replies. */
  script(turns: FakeTurn[], options?: { cycle?: boolean }): void;
  requestCount(): number;
  /** The statuses the fake answered with: a 400 means it rejected an invalid transcript. */
  statuses(): number[];
  /** Environment that points the CLI at this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeModel(protocol: Protocol): Promise<FakeModel> {
  const fake: FakeAnthropic | FakeOpenAI =
    protocol === "anthropic" ? await startFakeAnthropic() : await startFakeOpenAI();
  return {
    protocol,
    url: fake.url,
    script: (turns, options) => fake.script(turns as never, options),
    requestCount: () => fake.requests.length,
    statuses: () => fake.requests.map((request) => request.status),
    env: (): Record<string, string> =>
      protocol === "anthropic"
        ? {
            ANTHROPIC_API_KEY: "sk-ant-test-key",
            ANTHROPIC_BASE_URL: fake.url,
            MODEL_ID: "claude-haiku-4-5",
          }
        : { OPENAI_API_KEY: "sk-openai-test-key", OPENAI_BASE_URL: fake.url },
    close: () => fake.close(),
  };
}

export interface Sandbox {
  home: string;
  workspace: string;
  env: Record<string, string>;
}

/**
 * A fresh home (sessions, settings) and workspace, with none of this machine's keys, removed
 * when the test that made it has finished.
 */
export function freshSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "agentloop-cli-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, "home");
  const workspace = join(root, "work");
  for (const dir of [home, workspace]) mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CONFIG_HOME: join(home, ".config"),
    LANG: "C.UTF-8",
  };
  return { home, workspace, env };
}

export type { ProcessOptions as CliOptions, ProcessRun as CliRun } from "./run-process.js";

export function runCli(args: string[], options: ProcessOptions): Promise<ProcessRun> {
  return runProcess(process.execPath, [CLI, ...args], options);
}

/** The only session file written in this sandbox, read back. */
export function onlySession(sandbox: Sandbox): SessionContents & { path: string } {
  const directory = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
  const files = readdirSync(directory).filter((name) => name.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one session file, found ${files.length}`);
  const path = join(directory, files[0] as string);
  return { ...parseSession(readFileSync(path, "utf8")), path };
}
