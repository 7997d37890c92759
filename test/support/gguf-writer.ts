// Writes GGUF files for tests: the container llama.cpp loads models from. The format follows
// llama.cpp's gguf-py writer: little-endian, GGUF v3, metadata values typed as llama.cpp reads
// them (uint32 sizes, float32 epsilon), tensor dimensions in ggml order (the innermost,
// contiguous dimension first), tensor data aligned to 32 bytes. All tensors are float32.

export const ALIGNMENT = 32;

// GGUF metadata value types (gguf-py constants.GGUFValueType).
export const UINT32 = 4;
export const INT32 = 5;
export const FLOAT32 = 6;
export const BOOL = 7;
export const STRING = 8;
export const ARRAY = 9;

// ggml tensor type F32, token types NORMAL and CONTROL, file type ALL_F32.
const GGML_TYPE_F32 = 0;
export const TOKEN_NORMAL = 1;
export const TOKEN_CONTROL = 3;
/** A token matched in any text, as Qwen's tool and thinking tags are. */
export const TOKEN_USER_DEFINED = 4;
export const FILE_TYPE_ALL_F32 = 0;

export type Value =
  | { type: typeof UINT32; value: number }
  | { type: typeof FLOAT32; value: number }
  | { type: typeof BOOL; value: boolean }
  | { type: typeof STRING; value: string }
  | { type: typeof ARRAY; itemType: typeof INT32 | typeof STRING; value: (number | string)[] };

export interface Tensor {
  name: string;
  /** ggml order: `dims[0]` is the length of a row. */
  dims: number[];
  data: Float32Array;
}

export function ggufBytes(metadata: [string, Value][], tensors: Tensor[]): Buffer {
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
export function byteSymbols(): string[] {
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
export function prng(seed: number): () => number {
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

/**
 * The metadata of a byte-level GPT-2-style tokenizer (every text spelt in byte tokens) with its
 * chat template: what both test models share. "qwen2" is a ChatML family's pre-tokenizer;
 * unlike "default" and "gpt-2" it leaves clean_up_tokenization_spaces off, so detokenizing
 * " ," gives back " ," exactly.
 */
export function byteTokenizerMetadata(tokenizer: {
  vocab: string[];
  tokenTypes: number[];
  endOfText: number;
  endOfTurn: number;
  chatTemplate: string;
}): [string, Value][] {
  const u32 = (value: number): Value => ({ type: UINT32, value });
  return [
    ["tokenizer.ggml.model", { type: STRING, value: "gpt2" }],
    ["tokenizer.ggml.pre", { type: STRING, value: "qwen2" }],
    ["tokenizer.ggml.tokens", { type: ARRAY, itemType: STRING, value: tokenizer.vocab }],
    ["tokenizer.ggml.token_type", { type: ARRAY, itemType: INT32, value: tokenizer.tokenTypes }],
    // No merges: every text is spelt in byte tokens. llama.cpp requires the key, not entries.
    ["tokenizer.ggml.merges", { type: ARRAY, itemType: STRING, value: [] }],
    ["tokenizer.ggml.bos_token_id", u32(tokenizer.endOfText)],
    ["tokenizer.ggml.eos_token_id", u32(tokenizer.endOfTurn)],
    ["tokenizer.ggml.padding_token_id", u32(tokenizer.endOfText)],
    ["tokenizer.ggml.add_bos_token", { type: BOOL, value: false }],
    ["tokenizer.chat_template", { type: STRING, value: tokenizer.chatTemplate }],
  ];
}
