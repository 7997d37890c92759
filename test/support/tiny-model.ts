// Writes a tiny GGUF model for tests that need a real node-llama-cpp model but cannot download one.
// The model is a 2-layer llama of width 64 with random weights, so its text is noise, but it loads
// in milliseconds, generates at tens of milliseconds per token on a CPU, and has what a chat
// provider needs: a byte-level gpt2 vocabulary (any UTF-8 text round-trips through it), the
// ChatML control tokens, and a ChatML chat template (node-llama-cpp picks its ChatMLChatWrapper).
// Another template and name make node-llama-cpp choose the wrapper it would for that model.
//
//   npx tsx test/support/tiny-model.ts OUT.gguf [contextLength] [seed]

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ALIGNMENT,
  byteSymbols,
  byteTokenizerMetadata,
  FILE_TYPE_ALL_F32,
  FLOAT32,
  ggufBytes,
  prng,
  STRING,
  type Tensor,
  TOKEN_CONTROL,
  TOKEN_NORMAL,
  UINT32,
  type Value,
} from "./gguf-writer.js";

export interface TinyModelOptions {
  /** `llama.context_length`, which node-llama-cpp reports as `model.trainContextSize`. */
  contextLength?: number;
  /** Seed of the weights' PRNG: the same seed writes the same bytes. */
  seed?: number;
  /** `tokenizer.chat_template`; the ChatML template by default. */
  chatTemplate?: string;
  /** `general.name`, which node-llama-cpp also reads to choose a chat wrapper. */
  name?: string;
  /** More control tokens, after the ChatML ones: those another model's template writes. */
  controlTokens?: string[];
}

/** The shape of the model, for tests that want to check it. */
export const TINY_MODEL = {
  layers: 2,
  embedding: 64,
  feedForward: 128,
  heads: 4,
  kvHeads: 4,
  /** The 256 byte tokens (id = byte value), then the control tokens below (then any others). */
  vocabulary: 259,
  tokens: { endOfText: 256, imStart: 257, imEnd: 258 },
} as const;

/** The usual ChatML template: role/content messages and `add_generation_prompt`. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export function writeTinyModel(path: string, options: TinyModelOptions = {}): void {
  const contextLength = options.contextLength ?? 4096;
  if (!Number.isInteger(contextLength) || contextLength < 1) {
    throw new Error(`contextLength must be a positive integer, got ${contextLength}`);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, tinyModelBytes(contextLength, options));
}

function tinyModelBytes(contextLength: number, options: TinyModelOptions): Buffer {
  const { layers, embedding, feedForward, heads, kvHeads } = TINY_MODEL;
  const headDim = embedding / heads;
  const u32 = (value: number): Value => ({ type: UINT32, value });

  const vocab = [
    ...byteSymbols(),
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    ...(options.controlTokens ?? []),
  ];
  const vocabulary = vocab.length;
  const { tokens } = TINY_MODEL;
  const tokenTypes = vocab.map((_, id) => (id < 256 ? TOKEN_NORMAL : TOKEN_CONTROL));

  const metadata: [string, Value][] = [
    ["general.architecture", { type: STRING, value: "llama" }],
    ["general.name", { type: STRING, value: options.name ?? "agentloop tiny test model" }],
    ["general.file_type", u32(FILE_TYPE_ALL_F32)],
    ["general.alignment", u32(ALIGNMENT)],
    ["llama.vocab_size", u32(vocabulary)],
    ["llama.context_length", u32(contextLength)],
    ["llama.embedding_length", u32(embedding)],
    ["llama.block_count", u32(layers)],
    ["llama.feed_forward_length", u32(feedForward)],
    ["llama.attention.head_count", u32(heads)],
    ["llama.attention.head_count_kv", u32(kvHeads)],
    ["llama.rope.dimension_count", u32(headDim)],
    ["llama.rope.freq_base", { type: FLOAT32, value: 10000 }],
    ["llama.attention.layer_norm_rms_epsilon", { type: FLOAT32, value: 1e-5 }],
    ["tokenizer.ggml.eot_token_id", u32(tokens.imEnd)],
    ...byteTokenizerMetadata({
      vocab,
      tokenTypes,
      endOfText: tokens.endOfText,
      endOfTurn: tokens.imEnd,
      chatTemplate: options.chatTemplate ?? CHATML_TEMPLATE,
    }),
  ];

  const random = prng(options.seed ?? 1);
  const weights = (name: string, rowLength: number, rows: number): Tensor => {
    const data = new Float32Array(rowLength * rows);
    const scale = 1 / Math.sqrt(rowLength);
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * scale;
    return { name, dims: [rowLength, rows], data };
  };
  const norm = (name: string): Tensor => ({
    name,
    dims: [embedding],
    data: new Float32Array(embedding).fill(1),
  });

  // Shapes as llama.cpp's llama_model_llama::load_arch_tensors creates them.
  const tensors: Tensor[] = [
    weights("token_embd.weight", embedding, vocabulary),
    norm("output_norm.weight"),
    weights("output.weight", embedding, vocabulary),
  ];
  for (let layer = 0; layer < layers; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      norm(`${blk}.attn_norm.weight`),
      weights(`${blk}.attn_q.weight`, embedding, headDim * heads),
      weights(`${blk}.attn_k.weight`, embedding, headDim * kvHeads),
      weights(`${blk}.attn_v.weight`, embedding, headDim * kvHeads),
      weights(`${blk}.attn_output.weight`, headDim * heads, embedding),
      norm(`${blk}.ffn_norm.weight`),
      weights(`${blk}.ffn_gate.weight`, embedding, feedForward),
      weights(`${blk}.ffn_up.weight`, embedding, feedForward),
      weights(`${blk}.ffn_down.weight`, feedForward, embedding),
    );
  }

  return ggufBytes(metadata, tensors);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [out, contextLength, seed] = process.argv.slice(2);
  if (!out) {
    console.error("usage: npx tsx test/support/tiny-model.ts OUT.gguf [contextLength] [seed]");
    process.exit(2);
  }
  writeTinyModel(out, {
    contextLength: contextLength ? Number(contextLength) : undefined,
    seed: seed ? Number(seed) : undefined,
  });
  console.log(out);
}
