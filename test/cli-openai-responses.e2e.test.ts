// Issue 24 through the built CLI: `--provider openai --model gpt-6.1-sol` against the fake
// OpenAI server's /v1/responses, which checks every request as OpenAI does (reasoning items
// verified, calls and outputs paired). The same model on --api chat is refused, in one
// sentence that names --api responses; a session recorded on one protocol resumes on the other.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { freshSandbox, onlySession, runCli, type Sandbox } from "./support/cli-harness.js";
import { FAKE_REASONING_SUMMARY } from "./support/fake-openai-responses.js";
import {
  type FakeOpenAI,
  type FakeTurn,
  type RecordedRequest,
  startFakeOpenAI,
} from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const ON_RESPONSES = ["--provider", "openai", "--model", "gpt-6.1-sol"];

type Item = { type: string; call_id?: string; encrypted_content?: string; id?: string };

describe("the CLI on OpenAI's Responses API", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());

  const run = (sandbox: Sandbox, args: string[]) =>
    runCli(["--permission-mode", "yolo", ...args], {
      env: { ...sandbox.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url },
      cwd: sandbox.workspace,
    });

  /** Runs the task on a fresh script; returns what the CLI did and the requests it sent. */
  async function task(sandbox: Sandbox, turns: FakeTurn[], args: string[]) {
    fake.script(turns);
    const before = fake.requests.length;
    const outcome = await run(sandbox, args);
    return { ...outcome, requests: fake.requests.slice(before) };
  }

  const inputOf = (request: { body: Record<string, unknown> } | undefined) =>
    (request?.body.input ?? []) as Item[];

  it("completes a multi-step tool task, every reasoning item going back with its encrypted content", async () => {
    const sandbox = freshSandbox();
    const { code, stdout, requests } = await task(
      sandbox,
      [
        { kind: "reply", content: [text("Writing it."), bash("call_1", "echo 42 > n.txt")] },
        { kind: "reply", content: [bash("call_2", "cat n.txt")] },
        { kind: "reply", content: [text("n.txt holds 42.")] },
      ],
      [...ON_RESPONSES, "write 42 to n.txt and read it"],
    );
    expect({ code, stdout }).toEqual({ code: 0, stdout: "n.txt holds 42.\n" });
    expect(requests.map((request) => [request.path, request.status])).toEqual([
      ["/v1/responses", 200],
      ["/v1/responses", 200],
      ["/v1/responses", 200],
    ]);
    // The fake verified each one; the last request carries both earlier replies' reasoning.
    const reasoning = inputOf(requests[2]).filter((item) => item.type === "reasoning");
    expect(reasoning).toHaveLength(2);
    expect(reasoning.every((item) => item.encrypted_content?.startsWith("gAAAAA"))).toBe(true);

    const session = onlySession(sandbox);
    const first = session.messages[1] as Extract<Message, { role: "assistant" }>;
    expect(first.model).toBe("gpt-6.1-sol");
    expect(first.content[0]).toMatchObject({
      type: "opaque",
      protocol: "responses",
      thinking: FAKE_REASONING_SUMMARY,
    });
    expect(JSON.stringify(first.content[0])).toContain(reasoning[0]?.encrypted_content);
  });

  it("answers parallel calls in the order they were issued", async () => {
    const sandbox = freshSandbox();
    const calls = ["a", "b", "c"].map((name) => bash(`call_${name}`, `echo ${name}`));
    const { code, requests } = await task(
      sandbox,
      [
        { kind: "reply", content: calls },
        { kind: "reply", content: [text("Done.")] },
      ],
      [...ON_RESPONSES, "echo three letters"],
    );
    expect(code).toBe(0);
    const outputs = inputOf(requests[1]).filter((item) => item.type === "function_call_output");
    expect(outputs.map((item) => item.call_id)).toEqual(["call_a", "call_b", "call_c"]);
  });

  it("tries again after a reset in the middle of a call's arguments, and runs the tool once", async () => {
    const sandbox = freshSandbox();
    const append = bash("call_once", "echo ran >> runs.txt");
    const { code, stderr, requests } = await task(
      sandbox,
      [
        { kind: "reset", content: [append] },
        { kind: "reply", content: [append] },
        { kind: "reply", content: [text("Appended.")] },
      ],
      [...ON_RESPONSES, "append once"],
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/retrying|trying again|attempt 2/i);
    expect(requests).toHaveLength(3);
    expect(readFileSync(join(sandbox.workspace, "runs.txt"), "utf8")).toBe("ran\n");
  });

  it("waits as long as a 429's retry-after asks", async () => {
    const sandbox = freshSandbox();
    const limited: FakeTurn = {
      kind: "http_error",
      status: 429,
      message: "Rate limit reached for gpt-6.1-sol",
      headers: { "retry-after": "1" },
    };
    const { code, requests } = await task(
      sandbox,
      [limited, { kind: "reply", content: [text("Here.")] }],
      [...ON_RESPONSES, "hello"],
    );
    expect(code).toBe(0);
    const [first, second] = requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it("does not run a call cut off by max_output_tokens", async () => {
    const sandbox = freshSandbox();
    const { code, requests } = await task(
      sandbox,
      [
        {
          kind: "reply",
          content: [bash("call_cut", "echo ran > cut.txt && echo and a long tail")],
          stopReason: "max_tokens",
        },
        { kind: "reply", content: [text("I will keep it shorter.")] },
      ],
      [...ON_RESPONSES, "write cut.txt"],
    );
    expect(code).toBe(0);
    expect(existsSync(join(sandbox.workspace, "cut.txt"))).toBe(false);
    expect(requests.map((request) => request.status)).toEqual([200, 200]);
    const output = inputOf(requests[1]).find((item) => item.type === "function_call_output");
    expect(JSON.stringify(output)).toContain("cut off");
  });

  it("compacts when the stream reports context_length_exceeded, and finishes: the next request is smaller, none is sent again as it was", async () => {
    const sandbox = freshSandbox();
    // Each step prints about 25 KB (6,000 of the fake's tokens): the seventh or so passes the
    // 40,000-token window agentloop was not told about, and the fake turns it away as OpenAI
    // does, inside a 200 stream (an error event, then response.failed).
    const step = (k: number) =>
      `yes "build log line of step ${k}: compiling the module and linking it" | head -c 25000; echo; echo END-OF-STEP-${k}`;
    const steps = Array.from({ length: 10 }, (_, i) => i + 1);
    fake.script(
      [
        ...steps.map((k): FakeTurn => ({ kind: "reply", content: [bash(`call_${k}`, step(k))] })),
        { kind: "reply", content: [text("All 10 steps are built.")] },
      ],
      {
        intercept: (body) =>
          JSON.stringify(body.input).includes("[agentloop] The conversation has grown too long")
            ? { kind: "reply", content: [text("Steps are being built one by one.")] }
            : undefined,
      },
    );
    const before = fake.requests.length;
    fake.setContextWindow(40_000);
    const { code, stdout, stderr } = await run(sandbox, [...ON_RESPONSES, "build every step"]);
    fake.setContextWindow(undefined);
    const requests = fake.requests.slice(before);

    expect({ code, stdout }).toEqual({ code: 0, stdout: "All 10 steps are built.\n" });
    expect(stderr).not.toMatch(/retrying|trying again|attempt 2/i);
    const refused = requests.filter((request) => request.rejection !== undefined);
    expect(refused.map((request) => request.status)).toEqual([200]);
    const next = requests[requests.indexOf(refused[0] as RecordedRequest) + 1];
    expect(next?.tokens).toBeLessThan(refused[0]?.tokens ?? 0);
    const bodies = requests.map((request) => JSON.stringify(request.body));
    expect(new Set(bodies).size).toBe(bodies.length);
    // Every step's output reached the model whole in some request.
    for (const k of steps) {
      expect(bodies.some((body) => body.includes(`END-OF-STEP-${k}\\n`))).toBe(true);
    }
  }, 60_000);

  it("fails on --api chat with one sentence naming --api responses", async () => {
    const sandbox = freshSandbox();
    const { code, stdout, stderr, requests } = await task(
      sandbox,
      [],
      [...ON_RESPONSES, "--api", "chat", "write 42 to n.txt"],
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(requests.map((request) => [request.path, request.status])).toEqual([
      ["/v1/chat/completions", 400],
    ]);
    const lines = stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(
      /^agentloop: .*takes no function tools for "gpt-6.1-sol".*--api responses\.$/,
    );
  });

  it("resumes a Responses session on Chat Completions and back, each request valid", async () => {
    const sandbox = freshSandbox();
    const started = await task(
      sandbox,
      [
        { kind: "reply", content: [text("Listing."), bash("call_ls", "ls")] },
        { kind: "reply", content: [text("Nothing here.")] },
      ],
      [...ON_RESPONSES, "what is here?"],
    );
    expect(started.code).toBe(0);
    const onChat = await task(
      sandbox,
      [{ kind: "reply", content: [text("Still nothing.")] }],
      ["--provider", "openai", "--api", "chat", "--model", "gpt-5", "--continue", "and now?"],
    );
    expect(onChat.code).toBe(0);
    expect(onChat.requests.map((request) => [request.path, request.status])).toEqual([
      ["/v1/chat/completions", 200],
    ]);
    expect(JSON.stringify(onChat.requests[0]?.body)).not.toContain("encrypted_content");
    const back = await task(
      sandbox,
      [{ kind: "reply", content: [text("Yes, nothing.")] }],
      [...ON_RESPONSES, "--continue", "sure?"],
    );
    expect(back.code).toBe(0);
    expect(back.requests.map((request) => request.status)).toEqual([200]);
    // The first reply's reasoning was gpt-6.1-sol's own, so it goes back to it.
    expect(inputOf(back.requests[0]).filter((item) => item.type === "reasoning")).toHaveLength(2);
  });
});
