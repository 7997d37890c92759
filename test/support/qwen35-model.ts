// Writes a tiny GGUF model of Qwen3.5's architecture (llama.cpp's `qwen35`): three Gated
// DeltaNet layers (linear attention, a recurrent state) then one layer of gated attention,
// repeated, each with its feed-forward block. Its weights are random, so its text is noise; what
// it proves is that the pinned node-llama-cpp's prebuilt llama.cpp loads and runs the
// architecture, and with Qwen3.5's real chat template (test/fixtures) and special tokens it makes
// node-llama-cpp choose the wrapper it would for Qwen3.5-4B. Tensor names and shapes are those
// llama.cpp's loader asks for (src/models/qwen35.cpp, load_arch_tensors).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  ALIGNMENT,
  ARRAY,
  byteSymbols,
  byteTokenizerMetadata,
  FILE_TYPE_ALL_F32,
  FLOAT32,
  ggufBytes,
  INT32,
  prng,
  STRING,
  type Tensor,
  TOKEN_CONTROL,
  TOKEN_NORMAL,
  TOKEN_USER_DEFINED,
  UINT32,
  type Value,
} from "./gguf-writer.js";
import { QWEN_CONTROL_TOKENS, QWEN_TAGS } from "./qwen3-model.js";

export const QWEN3_5_TEMPLATE = readFileSync(
  new URL("../fixtures/chat-templates/qwen3.5.jinja", import.meta.url),
  "utf8",
);

// Qwen3.5-4B's pattern at a toy size: every fourth layer is full attention.
const LAYERS = 4;
const FULL_ATTENTION_INTERVAL = 4;
const EMBEDDING = 64;
const FEED_FORWARD = 128;
const HEADS = 2;
const KV_HEADS = 1;
const HEAD_DIM = 32;
// The Gated DeltaNet: key heads (ssm.group_count), value heads (ssm.time_step_rank), both of
// ssm.state_size dimensions, and the width of its causal convolution.
const KEY_HEADS = 2;
const VALUE_HEADS = 4;
const STATE = 16;
const CONVOLUTION = 4;

/** `chatTemplate` replaces Qwen3.5's (a variation of it). */
export function writeQwen35Model(path: string, options: { chatTemplate?: string } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, qwen35ModelBytes(options.chatTemplate ?? QWEN3_5_TEMPLATE));
}

function qwen35ModelBytes(chatTemplate: string): Buffer {
  const vocab = [...byteSymbols(), ...QWEN_CONTROL_TOKENS, ...QWEN_TAGS];
  const tokenTypes = vocab.map((_, id) =>
    id < 256
      ? TOKEN_NORMAL
      : id < 256 + QWEN_CONTROL_TOKENS.length
        ? TOKEN_CONTROL
        : TOKEN_USER_DEFINED,
  );
  const u32 = (value: number): Value => ({ type: UINT32, value });
  const key = (name: string) => `qwen35.${name}`;
  const keyDim = STATE * KEY_HEADS;
  const valueDim = STATE * VALUE_HEADS;
  const metadata: [string, Value][] = [
    ["general.architecture", { type: STRING, value: "qwen35" }],
    ["general.name", { type: STRING, value: "agentloop tiny Qwen3.5 test model" }],
    ["general.file_type", u32(FILE_TYPE_ALL_F32)],
    ["general.alignment", u32(ALIGNMENT)],
    [key("vocab_size"), u32(vocab.length)],
    [key("context_length"), u32(4096)],
    [key("embedding_length"), u32(EMBEDDING)],
    [key("block_count"), u32(LAYERS)],
    [key("feed_forward_length"), u32(FEED_FORWARD)],
    [key("attention.head_count"), u32(HEADS)],
    [key("attention.head_count_kv"), u32(KV_HEADS)],
    [key("attention.key_length"), u32(HEAD_DIM)],
    [key("attention.value_length"), u32(HEAD_DIM)],
    [key("attention.layer_norm_rms_epsilon"), { type: FLOAT32, value: 1e-6 }],
    [key("rope.freq_base"), { type: FLOAT32, value: 10_000_000 }],
    [key("rope.dimension_count"), u32(HEAD_DIM / 4)],
    [key("rope.dimension_sections"), { type: ARRAY, itemType: INT32, value: [2, 1, 1, 0] }],
    [key("ssm.conv_kernel"), u32(CONVOLUTION)],
    [key("ssm.inner_size"), u32(valueDim)],
    [key("ssm.state_size"), u32(STATE)],
    [key("ssm.time_step_rank"), u32(VALUE_HEADS)],
    [key("ssm.group_count"), u32(KEY_HEADS)],
    [key("full_attention_interval"), u32(FULL_ATTENTION_INTERVAL)],
    ...byteTokenizerMetadata({
      vocab,
      tokenTypes,
      endOfText: vocab.indexOf("<|endoftext|>"),
      endOfTurn: vocab.indexOf("<|im_end|>"),
      chatTemplate,
    }),
  ];

  const random = prng(35);
  const weights = (name: string, rowLength: number, rows = 1): Tensor => {
    const data = new Float32Array(rowLength * rows);
    for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) / Math.sqrt(rowLength);
    return { name, dims: rows === 1 ? [rowLength] : [rowLength, rows], data };
  };
  const ones = (name: string, length: number): Tensor => ({
    name,
    dims: [length],
    data: new Float32Array(length).fill(1),
  });

  const tensors: Tensor[] = [
    weights("token_embd.weight", EMBEDDING, vocab.length),
    ones("output_norm.weight", EMBEDDING),
    weights("output.weight", EMBEDDING, vocab.length),
  ];
  for (let layer = 0; layer < LAYERS; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      ones(`${blk}.attn_norm.weight`, EMBEDDING),
      ones(`${blk}.post_attention_norm.weight`, EMBEDDING),
    );
    if ((layer + 1) % FULL_ATTENTION_INTERVAL === 0) {
      // The query projection also writes the attention's output gate, hence twice the width.
      tensors.push(
        weights(`${blk}.attn_q.weight`, EMBEDDING, HEADS * HEAD_DIM * 2),
        weights(`${blk}.attn_k.weight`, EMBEDDING, KV_HEADS * HEAD_DIM),
        weights(`${blk}.attn_v.weight`, EMBEDDING, KV_HEADS * HEAD_DIM),
        weights(`${blk}.attn_output.weight`, HEADS * HEAD_DIM, EMBEDDING),
        ones(`${blk}.attn_q_norm.weight`, HEAD_DIM),
        ones(`${blk}.attn_k_norm.weight`, HEAD_DIM),
      );
    } else {
      const convolved = keyDim * 2 + valueDim;
      tensors.push(
        weights(`${blk}.attn_qkv.weight`, EMBEDDING, convolved),
        weights(`${blk}.attn_gate.weight`, EMBEDDING, valueDim),
        weights(`${blk}.ssm_conv1d.weight`, CONVOLUTION, convolved),
        weights(`${blk}.ssm_dt.bias`, VALUE_HEADS),
        weights(`${blk}.ssm_a`, VALUE_HEADS),
        weights(`${blk}.ssm_beta.weight`, EMBEDDING, VALUE_HEADS),
        weights(`${blk}.ssm_alpha.weight`, EMBEDDING, VALUE_HEADS),
        ones(`${blk}.ssm_norm.weight`, STATE),
        weights(`${blk}.ssm_out.weight`, valueDim, EMBEDDING),
      );
    }
    tensors.push(
      weights(`${blk}.ffn_gate.weight`, EMBEDDING, FEED_FORWARD),
      weights(`${blk}.ffn_up.weight`, EMBEDDING, FEED_FORWARD),
      weights(`${blk}.ffn_down.weight`, FEED_FORWARD, EMBEDDING),
    );
  }
  return ggufBytes(metadata, tensors);
}
