// The tiny GGUF model of test/support/tiny-model.ts, through the real node-llama-cpp.

import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ChatMLChatWrapper,
  getLlama,
  type Llama,
  LlamaChat,
  type LlamaContext,
  type LlamaModel,
  readGgufFileInfo,
  resolveChatWrapper,
  type Token,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TINY_MODEL, writeTinyModel } from "./support/tiny-model.js";

const CONTEXT_LENGTH = 3072;

describe("tiny GGUF model", () => {
  let dir: string;
  let modelPath: string;
  let llama: Llama;
  let model: LlamaModel;
  let context: LlamaContext | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentloop-tiny-model-"));
    modelPath = join(dir, "tiny.gguf");
    writeTinyModel(modelPath, { contextLength: CONTEXT_LENGTH, seed: 7 });
    llama = await getLlama({ gpu: false, build: "never" });
    const started = performance.now();
    model = await llama.loadModel({ modelPath });
    const size = statSync(modelPath).size;
    console.log(
      `tiny model: ${(size / 1024).toFixed(0)} KiB, loaded in ${(performance.now() - started).toFixed(1)} ms`,
    );
  });

  afterAll(async () => {
    await context?.dispose();
    await model?.dispose();
    await llama?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is about half a megabyte, and the same bytes for the same seed", () => {
    const size = statSync(modelPath).size;
    expect(size).toBeGreaterThan(300_000);
    expect(size).toBeLessThan(700_000);

    const again = join(dir, "again.gguf");
    writeTinyModel(again, { contextLength: CONTEXT_LENGTH, seed: 7 });
    expect(readFileSync(again).equals(readFileSync(modelPath))).toBe(true);

    const other = join(dir, "other.gguf");
    writeTinyModel(other, { contextLength: CONTEXT_LENGTH, seed: 8 });
    expect(readFileSync(other).equals(readFileSync(modelPath))).toBe(false);
  });

  it("declares the context length it was written with, 4096 by default", async () => {
    expect(model.trainContextSize).toBe(CONTEXT_LENGTH);

    const defaultPath = join(dir, "default.gguf");
    writeTinyModel(defaultPath);
    const info = await readGgufFileInfo(defaultPath);
    expect(info.version).toBe(3);
    expect(info.metadata.general.architecture).toBe("llama");
    expect(info.architectureMetadata.context_length).toBe(4096);
    expect(info.architectureMetadata.block_count).toBe(TINY_MODEL.layers);
    expect(info.tensorInfo?.length).toBe(3 + 9 * TINY_MODEL.layers);
  });

  it("round-trips UTF-8 text through byte tokens", () => {
    for (const text of ["héllo ✓ world", "a , b . c 's\n\t  😀 \u0000 end"]) {
      const tokens = model.tokenize(text);
      expect(tokens).toHaveLength(Buffer.byteLength(text, "utf8"));
      expect(tokens.every((token) => token < 256)).toBe(true);
      expect(model.detokenize(tokens)).toBe(text);
    }
  });

  it("recognises the ChatML control tokens", () => {
    const { endOfText, imStart, imEnd } = TINY_MODEL.tokens;
    expect(model.tokenize("<|im_end|>", true)).toEqual([imEnd]);
    expect(model.tokenize("<|im_start|>user\nhi<|im_end|>", true)).toEqual([
      imStart,
      ...model.tokenize("user\nhi"),
      imEnd,
    ]);
    // Without special tokens enabled, the same text is plain bytes.
    expect(model.tokenize("<|im_end|>")).toHaveLength("<|im_end|>".length);
    expect(model.tokens.eos).toBe(imEnd);
    expect(model.tokens.eosString).toBe("<|im_end|>");
    expect(model.tokens.bos).toBe(endOfText);
    expect(model.tokens.shouldPrependBosToken).toBe(false);
    expect(model.isSpecialToken(imEnd as Token)).toBe(true);
    expect(model.isEogToken(imEnd as Token)).toBe(true);
  });

  it("gets node-llama-cpp's ChatML wrapper from its chat template", () => {
    expect(resolveChatWrapper(model)).toBeInstanceOf(ChatMLChatWrapper);
  });

  it("generates (noise) through LlamaChat", async () => {
    // One thread: the default on a CPU is max(cores, 4) threads, which on a 2-core machine makes
    // this model take ~250 ms a token instead of well under 1 ms.
    context = await model.createContext({ contextSize: 512, threads: 1 });
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    expect(chat.chatWrapper).toBeInstanceOf(ChatMLChatWrapper);

    const chunks: string[] = [];
    const started = performance.now();
    const result = await chat.generateResponse(
      [
        { type: "system", text: "You are a test." },
        { type: "user", text: "Say something." },
        { type: "model", response: [""] },
      ],
      { maxTokens: 8, onTextChunk: (text) => chunks.push(text) },
    );
    const elapsed = performance.now() - started;
    const usage = chat.sequence.tokenMeter.getState();

    expect(typeof result.response).toBe("string");
    expect(["maxTokens", "eogToken", "stopGenerationTrigger"]).toContain(
      result.metadata.stopReason,
    );
    expect(chunks.join("")).toBe(result.response);
    expect(usage.usedInputTokens).toBeGreaterThan(10);
    expect(usage.usedOutputTokens).toBeGreaterThan(0);
    expect(usage.usedOutputTokens).toBeLessThanOrEqual(8);
    console.log(
      `tiny model: ${usage.usedInputTokens} prompt + ${usage.usedOutputTokens} generated tokens in ${elapsed.toFixed(1)} ms ` +
        `(${(elapsed / usage.usedOutputTokens).toFixed(2)} ms per generated token, prompt included), ` +
        `stop reason ${result.metadata.stopReason}`,
    );
  });
});
