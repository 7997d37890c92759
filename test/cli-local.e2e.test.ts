// --provider local through the built CLI, with no key and no model server: a tiny GGUF model
// (test/support/tiny-model.ts) fetched from a fake Hugging Face host on first use, then run in
// the agentloop process by the real node-llama-cpp; and a Qwen3-format model with hand-set
// weights (test/support/qwen3-model.ts) that calls a tool by itself.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshSandbox, onlySession, runCli } from "./support/cli-harness.js";
import { startFakeModelHost } from "./support/fake-model-host.js";
import { QWEN3_SCRIPT, writeQwen3Model } from "./support/qwen3-model.js";
import { writeTinyModel } from "./support/tiny-model.js";

/** A context just big enough for agentloop's system prompt and the bash tool in byte tokens. */
// Room for the system prompt (with its environment section) and bash, one byte a token.
const CONTEXT = 3072;

function tinyModelBytes(directory: string): Buffer {
  const path = join(directory, "tiny.gguf");
  writeTinyModel(path, { contextLength: CONTEXT });
  return readFileSync(path);
}

describe("agentloop --provider local", () => {
  it("downloads the model once, then runs a task on it with no key and no server", async () => {
    const sandbox = freshSandbox();
    const host = await startFakeModelHost([
      { at: "tester/tiny-GGUF/tiny.gguf", bytes: tinyModelBytes(sandbox.home) },
    ]);
    try {
      // One thread, as llama-server's variable says: two threads on two busy cores spin-wait
      // on each other, and the tiny model's thousand noise tokens then take minutes, not seconds.
      const env = { ...sandbox.env, HF_ENDPOINT: host.url, LLAMA_ARG_THREADS: "1" };
      const args = ["--provider", "local", "--model", "hf:tester/tiny-GGUF/tiny.gguf"];
      // The tiny model's byte tokens fit bash's definition in its context, not all four tools'.
      const task = [
        ...args,
        "--tools",
        "bash",
        "--max-turns",
        "1",
        "--output-format",
        "json",
        "say hello",
      ];
      const first = await runCli(task, { env, cwd: sandbox.workspace });
      expect(first.stderr).toMatch(
        /downloading tiny\.gguf \(0\.0 GB\) once, to .*\/agentloop\/models\/hubs\/127\.0\.0\.1_\d+\/tester\/tiny-GGUF\/tiny\.gguf/,
      );
      expect(first.stderr).toMatch(
        /local model tiny\.gguf on CPU, 1 thread, context 3,072 tokens\./,
      );
      // A random model ends its answer (0) or is cut off and stopped by --max-turns (3).
      expect([0, 3]).toContain(first.code);
      const result = JSON.parse(first.stdout);
      expect(result).toMatchObject({ type: "result", num_turns: 1, total_cost_usd: null });
      expect(result.usage.output_tokens).toBeGreaterThan(0);
      expect(result.usage.input_tokens).toBeGreaterThan(1000);
      const session = onlySession(sandbox);
      expect(session.header).toMatchObject({
        provider: "local",
        model: "hf:tester/tiny-GGUF/tiny.gguf",
      });
      expect(session.messages.map((message) => message.role)).toEqual(
        expect.arrayContaining(["user", "assistant"]),
      );

      const downloads = host.downloads().length;
      const second = await runCli(task, { env, cwd: sandbox.workspace });
      expect([0, 3]).toContain(second.code);
      expect(second.stderr).not.toMatch(/downloading/);
      expect(host.downloads()).toHaveLength(downloads);
    } finally {
      await host.close();
    }
  }, 120_000);

  it("a Qwen3 model calls bash by itself, is fed the raw output, and answers", async () => {
    const sandbox = freshSandbox();
    const model = join(sandbox.home, "qwen3.gguf");
    writeQwen3Model(model);
    const notes = "name\tvalue\nsecond line\n";
    writeFileSync(join(sandbox.workspace, "notes.txt"), notes);
    const run = await runCli(
      [
        "--provider",
        "local",
        "--model",
        model,
        "--tools",
        "bash",
        "--output-format",
        "json",
        "Read my notes.",
      ],
      { env: { ...sandbox.env, LLAMA_ARG_THREADS: "1" }, cwd: sandbox.workspace },
    );
    expect(run.code).toBe(0);
    // The model's answer says a tab reached it: the output was not JSON-escaped on the way.
    expect(JSON.parse(run.stdout)).toMatchObject({
      subtype: "success",
      result: QWEN3_SCRIPT.answerRaw,
      num_turns: 2,
    });
    const { messages } = onlySession(sandbox);
    expect(messages).toMatchObject([
      { role: "user", content: "Read my notes." },
      {
        role: "assistant",
        model: "qwen3.gguf",
        content: [
          { type: "thinking", thinking: QWEN3_SCRIPT.thought },
          { type: "tool_use", name: "bash", input: { command: QWEN3_SCRIPT.command } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", content: expect.stringContaining(notes) }] },
      { role: "assistant", content: [{ type: "text", text: QWEN3_SCRIPT.answerRaw }] },
    ]);
  }, 60_000);

  it("offline, says where to put the model file, and exits 2", async () => {
    const sandbox = freshSandbox();
    const env = { ...sandbox.env, HF_ENDPOINT: "http://127.0.0.1:9" };
    const run = await runCli(["--provider", "local", "say hello"], { env, cwd: sandbox.workspace });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /Cannot download .*Qwen3\.5-4B-Q4_K_M\.gguf .*save it as .*\/agentloop\/models\/hubs\/127\.0\.0\.1_9\/unsloth\/Qwen3\.5-4B-GGUF\/Qwen3\.5-4B-Q4_K_M\.gguf, or pass --model/,
    );
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a thread count that is not a whole number is one sentence and exit code 2", async () => {
    const sandbox = freshSandbox();
    const model = join(sandbox.home, "tiny.gguf");
    writeTinyModel(model, { contextLength: CONTEXT });
    const run = await runCli(["--provider", "local", "--model", model, "hi"], {
      env: { ...sandbox.env, LLAMA_ARG_THREADS: "two" },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'agentloop: LLAMA_ARG_THREADS must be a whole number of threads, at least 1, not "two".',
    );
  });

  it("a model file that does not exist is one sentence and exit code 2", async () => {
    const sandbox = freshSandbox();
    const run = await runCli(["--provider", "local", "--model", "./nowhere.gguf", "hi"], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^agentloop: The model file \.\/nowhere\.gguf does not exist/);
  });
});
