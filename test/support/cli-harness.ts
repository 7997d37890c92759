// Runs the built CLI (dist/cli.js) as a real subprocess against a fake model server, in a
// throwaway home and workspace, and collects what it printed and how it exited.

import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onTestFinished } from "vitest";
import { parseSession, type SessionContents } from "../../src/session/session-file.js";
import { countTokens } from "./fake-anthropic-cache.js";
import {
  type FakeAnthropic,
  type FakeTurn,
  type RecordedBody,
  startFakeAnthropic,
} from "./fake-anthropic-server.js";
import { countChatTokens, type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.js";
import { type ProcessOptions, type ProcessRun, runProcess } from "./run-process.js";

export const CLI = resolve(import.meta.dirname, "../../dist/cli.js");

/** The tools a hosted model's session offers by default, where there is no skill. */
export const HOSTED_DEFAULT_TOOLS = [
  "bash",
  "read",
  "write",
  "edit",
  "agent",
  "web_fetch",
  "web_search",
];

/** "openai" is Chat Completions, the protocol of every compatible server; "responses" OpenAI's newer one. */
export type Protocol = "anthropic" | "openai" | "responses";

/** What an intercept sees of a request, the same for both protocols. */
export interface InterceptedRequest {
  /**
   * The text of the last message when it is the user's (Anthropic: its text blocks joined by
   * newlines), else "" (as when the last message carries tool results only).
   */
  lastUserText: string;
  /** The text of the first user message: whose conversation this is (a subagent's prompt). */
  firstUserText: string;
}

export interface FakeModelScriptOptions {
  /** Starts the script over when it runs out. */
  cycle?: boolean;
  /** Answers the requests it returns a turn for (such as summary requests) outside the script. */
  intercept?: (request: InterceptedRequest) => FakeTurn | undefined;
}

/** One request as the fake saw it. */
export interface FakeModelRequest {
  /** The HTTP status the fake answered with. */
  status: number;
  /**
   * Whether the fake turned it away: with an error status, or (too long on the Responses API)
   * inside a stream that began with a 200.
   */
  refused: boolean;
  /** The body's length in bytes. */
  bytes: number;
  /** The request's size in the fake's tokens (four characters to a token). */
  tokens: number;
  /** Tokens read from the Anthropic fake's prompt cache; always 0 for OpenAI. */
  cacheRead: number;
  /** The request body as JSON text. */
  body: string;
}

export interface FakeModel {
  protocol: Protocol;
  url: string;
  /** The preset the CLI runs on against this fake (and records in the session header). */
  preset: "anthropic" | "openai";
  /**
   * The flags that make the CLI speak this protocol, with a model that takes tools on it: the
   * openai preset speaks Responses unless told --api chat, and its default model takes no
   * tools on Chat Completions.
   */
  flags: string[];
  /** Turns in the fake Anthropic server's shape; the OpenAI fake accepts the same replies. */
  script(turns: FakeTurn[], options?: FakeModelScriptOptions): void;
  /** Sets the context window from the next request on; undefined lifts the limit. */
  setContextWindow(tokens: number | undefined): void;
  requestCount(): number;
  /** The statuses the fake answered with: a 400 means it rejected an invalid transcript. */
  statuses(): number[];
  requests(): FakeModelRequest[];
  /** Environment that points the CLI at this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeModel(
  protocol: Protocol,
  options: { contextWindow?: number } = {},
): Promise<FakeModel> {
  const anthropic = protocol === "anthropic" ? await startFakeAnthropic(options) : null;
  const fake: FakeAnthropic | FakeOpenAI = anthropic ?? (await startFakeOpenAI(options));
  const lastText = protocol === "responses" ? lastResponsesText : lastChatText;
  const firstText = protocol === "responses" ? firstResponsesText : firstChatText;
  return {
    protocol,
    url: fake.url,
    preset: protocol === "anthropic" ? "anthropic" : "openai",
    flags: {
      anthropic: [],
      openai: ["--api", "chat", "--model", "gpt-5"],
      responses: ["--model", "gpt-6.1-sol"],
    }[protocol],
    script(turns, { cycle, intercept } = {}) {
      if (anthropic) {
        anthropic.script(turns, {
          cycle,
          intercept:
            intercept &&
            ((body) =>
              intercept({
                lastUserText: lastAnthropicText(body),
                firstUserText: userText(body.messages.find((message) => message.role === "user")),
              })),
        });
      } else {
        (fake as FakeOpenAI).script(turns as never, {
          cycle,
          intercept:
            intercept &&
            ((body) =>
              intercept({ lastUserText: lastText(body), firstUserText: firstText(body) }) as never),
        });
      }
    },
    setContextWindow: (tokens) => fake.setContextWindow(tokens),
    requestCount: () => fake.requests.length,
    statuses: () => fake.requests.map((request) => request.status),
    requests: () =>
      fake.requests.map((request) => ({
        status: request.status,
        refused: request.status !== 200 || ("rejection" in request && !!request.rejection),
        bytes: request.bytesReceived,
        tokens: request.tokens ?? safeCount(protocol, request.body),
        cacheRead: "usage" in request ? (request.usage?.cache_read_input_tokens ?? 0) : 0,
        body: JSON.stringify(request.body),
      })),
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

function lastAnthropicText(body: RecordedBody): string {
  const last = body.messages.at(-1);
  return last?.role === "user" ? userText(last) : "";
}

function userText(message: RecordedBody["messages"][number] | undefined): string {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .flatMap((block) => (block.type === "text" ? [String(block.text)] : []))
    .join("\n");
}

function firstChatText(body: Record<string, unknown>): string {
  const messages = body.messages as { role?: unknown; content?: unknown }[];
  const first = messages.find((message) => message.role === "user");
  return typeof first?.content === "string" ? first.content : "";
}

function firstResponsesText(body: Record<string, unknown>): string {
  const input = body.input as { type?: unknown; role?: unknown; content?: unknown }[];
  const first = input.find((item) => item.type === "message" && item.role === "user");
  return typeof first?.content === "string" ? first.content : "";
}

function lastChatText(body: Record<string, unknown>): string {
  const messages = body.messages as { role?: unknown; content?: unknown }[];
  const last = messages.at(-1);
  if (last?.role !== "user") return "";
  if (typeof last.content === "string") return last.content;
  if (!Array.isArray(last.content)) return "";
  return (last.content as { type?: unknown; text?: unknown }[])
    .flatMap((part) => (part.type === "text" ? [String(part.text)] : []))
    .join("\n");
}

function lastResponsesText(body: Record<string, unknown>): string {
  const input = body.input as { type?: unknown; role?: unknown; content?: unknown }[];
  const last = input.at(-1);
  if (last?.type !== "message" || last.role !== "user") return "";
  return typeof last.content === "string" ? last.content : "";
}

/** The tokens of a request the fake rejected before counting it, or 0 if it can't be read. */
function safeCount(protocol: Protocol, body: unknown): number {
  try {
    return protocol === "anthropic"
      ? countTokens(body as RecordedBody)
      : countChatTokens(body as Record<string, unknown>);
  } catch {
    return 0;
  }
}

export interface Sandbox {
  home: string;
  workspace: string;
  env: Record<string, string>;
}

/**
 * A fresh home (sessions, settings) and workspace, with none of this machine's keys, removed
 * when the test that made it has finished (outside a test, by whoever made it).
 */
export function freshSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "agentloop-cli-"));
  try {
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  } catch {
    // Not inside a test (the benchmarks in bench/): the caller removes it.
  }
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

/** Writes the person's own settings file in the sandbox (`$XDG_CONFIG_HOME/agentloop/settings.json`). */
export function writeUserSettings(sandbox: Sandbox, settings: Record<string, unknown>): void {
  const directory = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "settings.json"), JSON.stringify(settings));
}

export type { ProcessOptions as CliOptions, ProcessRun as CliRun } from "./run-process.js";

export function runCli(args: string[], options: ProcessOptions): Promise<ProcessRun> {
  return runProcess(process.execPath, [CLI, ...args], options);
}

/**
 * Ctrl-C for a run: its `onSpawn` sends SIGINT 300 ms after the run's stdout first shows what
 * `ready` looks for; `at()` is when it saw it (0 while it has not).
 */
export function interruptWhen(ready: (stdout: string) => boolean) {
  let at = 0;
  return {
    at: () => at,
    onSpawn(child: ChildProcess) {
      let seen = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (at || !ready(seen)) return;
        at = Date.now();
        setTimeout(() => child.kill("SIGINT"), 300);
      });
    },
  };
}

/** What `--output-format stream-json` printed: one object per line. */
/** The first request of a run that `args` make in a fresh sandbox, the model answering "Hi.". */
export async function firstRequestOf<Body>(model: FakeModel, args: string[]): Promise<Body> {
  const sandbox = freshSandbox();
  model.script([{ kind: "reply", content: [{ type: "text", text: "Hi." }] }]);
  const before = model.requestCount();
  const run = await runCli([...model.flags, ...args, "-p", "hi"], {
    env: { ...sandbox.env, ...model.env() },
    cwd: sandbox.workspace,
  });
  if (run.code !== 0) throw new Error(`agentloop exited ${run.code}: ${run.stderr}`);
  return JSON.parse(model.requests()[before]?.body ?? "{}") as Body;
}

export function jsonLines<T>(stdout: string): T[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/**
 * Runs the CLI in stream-json against `model` with `turns` scripted (and `intercept` answering
 * what it recognises), `env` added to the sandbox's: how it ended, the events it printed, and
 * the requests it sent.
 */
export async function runStreamJson(
  model: FakeModel,
  sandbox: Sandbox,
  turns: FakeTurn[],
  args: string[],
  intercept?: FakeModelScriptOptions,
  env: Record<string, string> = {},
) {
  const before = model.requestCount();
  model.script(turns, intercept);
  const result = await runCli(["--output-format", "stream-json", ...model.flags, ...args], {
    env: { ...sandbox.env, ...model.env(), ...env },
    cwd: sandbox.workspace,
  });
  model.script([]);
  const events = jsonLines<Record<string, unknown> & { type: string }>(result.stdout);
  return { result, events, requests: model.requests().slice(before) };
}

/** runStreamJson, said shortly: how it exited, its events, and each request's body as JSON. */
export async function runForBodies<Body>(...run: Parameters<typeof runStreamJson>) {
  const ran = await runStreamJson(...run);
  return {
    code: ran.result.code,
    stderr: ran.result.stderr,
    events: ran.events,
    bodies: ran.requests.map((request) => JSON.parse(request.body) as Body),
  };
}

/** The only session file written in this sandbox, read back. */
export function onlySession(sandbox: Sandbox): SessionContents & { path: string } {
  const directory = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
  const files = readdirSync(directory).filter((name) => name.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one session file, found ${files.length}`);
  const path = join(directory, files[0] as string);
  return { ...parseSession(readFileSync(path, "utf8")), path };
}
