// Writes a tiny GGUF model for tests that need a real node-llama-cpp model but cannot download one.
// The model is a 2-layer llama of width 64 with random weights, so its text is noise, but it loads
// in milliseconds, generates at tens of milliseconds per token on a CPU, and has what a chat
// provider needs: a byte-level gpt2 vocabulary (any UTF-8 text round-trips through it), the
// ChatML control tokens, and a ChatML chat template (node-llama-cpp picks its ChatMLChatWrapper).
//
// The format follows llama.cpp's gguf-py writer: little-endian, GGUF v3, metadata values typed as
// llama.cpp reads them (uint32 sizes, float32 epsilon), tensor dimensions in ggml order (the
// innermost, contiguous dimension first), tensor data aligned to 32 bytes.
//
//   npx tsx test/support/tiny-model.ts OUT.gguf [contextLength] [seed]

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

export interface TinyModelOptions {
  /** `llama.context_length`, which node-llama-cpp reports as `model.trainContextSize`. */
  contextLength?: number;
  /** Seed of the weights' PRNG: the same seed writes the same bytes. */
  seed?: number;
}

/** The shape of the model, for tests that want to check it. */
export const TINY_MODEL = {
  layers: 2,
  embedding: 64,
  feedForward: 128,
  heads: 4,
  kvHeads: 4,
  /** The 256 byte tokens (id = byte value), then the control tokens below. */
  vocabulary: 259,
  tokens: { endOfText: 256, imStart: 257, imEnd: 258 },
} as const;

/** The usual ChatML template: role/content messages and `add_generation_prompt`. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const ALIGNMENT = 32;

// GGUF metadata value types (gguf-py constants.GGUFValueType).
const UINT32 = 4;
const INT32 = 5;
const FLOAT32 = 6;
const BOOL = 7;
const STRING = 8;
const ARRAY = 9;

// ggml tensor type F32, token types NORMAL and CONTROL, file type ALL_F32.
const GGML_TYPE_F32 = 0;
const TOKEN_NORMAL = 1;
const TOKEN_CONTROL = 3;
const FILE_TYPE_ALL_F32 = 0;

type Value =
  | { type: typeof UINT32; value: number }
  | { type: typeof FLOAT32; value: number }
  | { type: typeof BOOL; value: boolean }
  | { type: typeof STRING; value: string }
  | { type: typeof ARRAY; itemType: typeof INT32 | typeof STRING; value: (number | string)[] };

interface Tensor {
  name: string;
  /** ggml order: `dims[0]` is the length of a row. */
  dims: number[];
  data: Float32Array;
}

export function writeTinyModel(path: string, options: TinyModelOptions = {}): void {
  const contextLength = options.contextLength ?? 4096;
  if (!Number.isInteger(contextLength) || contextLength < 1) {
    throw new Error(`contextLength must be a positive integer, got ${contextLength}`);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, tinyModelBytes(contextLength, options.seed ?? 1));
}

function tinyModelBytes(contextLength: number, seed: number): Buffer {
  const { layers, embedding, feedForward, heads, kvHeads, vocabulary, tokens } = TINY_MODEL;
  const headDim = embedding / heads;
  const u32 = (value: number): Value => ({ type: UINT32, value });

  const vocab = [...byteSymbols(), "<|endoftext|>", "<|im_start|>", "<|im_end|>"];
  const tokenTypes = vocab.map((_, id) => (id < 256 ? TOKEN_NORMAL : TOKEN_CONTROL));

  const metadata: [string, Value][] = [
    ["general.architecture", { type: STRING, value: "llama" }],
    ["general.name", { type: STRING, value: "agentloop tiny test model" }],
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
    ["tokenizer.ggml.model", { type: STRING, value: "gpt2" }],
    // "qwen2" is a ChatML family's GPT-2-style pre-tokenizer; unlike "default" and "gpt-2" it
    // leaves clean_up_tokenization_spaces off, so detokenizing " ," gives back " ," exactly.
    ["tokenizer.ggml.pre", { type: STRING, value: "qwen2" }],
    ["tokenizer.ggml.tokens", { type: ARRAY, itemType: STRING, value: vocab }],
    ["tokenizer.ggml.token_type", { type: ARRAY, itemType: INT32, value: tokenTypes }],
    // No merges: every text is spelt in byte tokens. llama.cpp requires the key, not entries.
    ["tokenizer.ggml.merges", { type: ARRAY, itemType: STRING, value: [] }],
    ["tokenizer.ggml.bos_token_id", u32(tokens.endOfText)],
    ["tokenizer.ggml.eos_token_id", u32(tokens.imEnd)],
    ["tokenizer.ggml.eot_token_id", u32(tokens.imEnd)],
    ["tokenizer.ggml.padding_token_id", u32(tokens.endOfText)],
    ["tokenizer.ggml.add_bos_token", { type: BOOL, value: false }],
    ["tokenizer.chat_template", { type: STRING, value: CHATML_TEMPLATE }],
  ];

  const random = prng(seed);
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

  const out = new ByteWriter();
  out.bytes(Buffer.from("GGUF", "latin1"));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    out.value(value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset = alignUp(offset + tensor.data.byteLength);
  }
  out.pad();
  for (const tensor of tensors) {
    out.bytes(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.pad();
  }
  return out.finish();
}

/** GPT-2's bytes_to_unicode: byte b is spelt as this character in a byte-level BPE vocabulary. */
function byteSymbols(): string[] {
  const printable = (b: number) =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const symbols: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    symbols.push(String.fromCodePoint(printable(b) ? b : 256 + shifted++));
  }
  return symbols;
}

/** mulberry32: a small, fast, seedable PRNG giving floats in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function alignUp(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

class ByteWriter {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  bytes(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }

  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.bytes(b);
  }

  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }

  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }

  /** A GGUF string: uint64 byte length, then UTF-8 bytes without a terminator. */
  string(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.bytes(b);
  }

  value(v: Value): void {
    this.u32(v.type);
    if (v.type === UINT32) this.u32(v.value);
    else if (v.type === FLOAT32) this.f32(v.value);
    else if (v.type === BOOL) this.bytes(Buffer.from([v.value ? 1 : 0]));
    else if (v.type === STRING) this.string(v.value);
    else {
      this.u32(v.itemType);
      this.u64(v.value.length);
      for (const item of v.value) {
        if (v.itemType === STRING) this.string(String(item));
        else this.i32(Number(item));
      }
    }
  }

  pad(): void {
    const padding = alignUp(this.length) - this.length;
    if (padding > 0) this.bytes(Buffer.alloc(padding));
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
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
