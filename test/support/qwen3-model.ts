// Writes a tiny Qwen3-format GGUF model whose weights are set by hand, so that it acts out a
// fixed script: asked anything, it thinks, then calls the bash tool with `cat notes.txt`; once a
// tool result is in the conversation, it answers, and its answer says whether a tab character
// reached it. A tab survives only when the result is written as raw text (JSON writes `\t`), so
// the answer tells a test how the tool output was written.
//
// How the weights do it: every token's embedding is a constant dimension plus at most one
// "state" dimension. Attention and feed-forward write nothing except two attention heads, each
// of which looks for one marker token anywhere earlier in the context (`<tool_response>`, a
// tab) and, when it finds one, sets a dimension of its own. The output layer then maps a state
// (and the two marker dimensions) to the next token of the script, by a wide margin, so sampling
// always picks it. The script's steps are whole tokens of the vocabulary (a model can generate
// any token, even one that tokenizing text never produces), so every step is a distinct state.
//
// It has Qwen3's architecture, control tokens and real chat template (test/fixtures), so
// node-llama-cpp treats it as a Qwen3 model and picks its QwenChatWrapper.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  ALIGNMENT,
  byteSymbols,
  byteTokenizerMetadata,
  FILE_TYPE_ALL_F32,
  FLOAT32,
  ggufBytes,
  STRING,
  type Tensor,
  TOKEN_CONTROL,
  TOKEN_NORMAL,
  TOKEN_USER_DEFINED,
  UINT32,
  type Value,
} from "./gguf-writer.js";

export const QWEN3_TEMPLATE = readFileSync(
  new URL("../fixtures/chat-templates/qwen3.jinja", import.meta.url),
  "utf8",
);

/** What the scripted model writes. */
export const QWEN3_SCRIPT = {
  thought: "The notes are in notes.txt; I will read them.",
  command: "cat notes.txt",
  /** The answer when a tab reached it: the result came as raw text. */
  answerRaw: "The notes came as lines of text.",
  /** The answer when no tab reached it: the result came JSON-escaped. */
  answerEscaped: "The notes came as one escaped string.",
} as const;

// Qwen3's special tokens (and Qwen3.5's): control tokens, and the tool and thinking tags
// (user-defined tokens in their GGUF files, matched in any text).
export const QWEN_CONTROL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
export const QWEN_TAGS = [
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
  "<think>",
  "</think>",
];

// The scripts: in each, a token is followed by the next. "\n" ends every generation prompt
// (`<|im_start|>assistant\n`); what follows it depends on whether a tool result was seen.
const CALL_SCRIPT = [
  "\n",
  "<think>",
  `\n${QWEN3_SCRIPT.thought}\n`,
  "</think>",
  "\n\n",
  "<tool_call>",
  '\n{"name": "',
];
// Once the model has begun a call, node-llama-cpp writes the function's name and
// `", "arguments": ` itself, in byte tokens, so the arguments follow the space that ends them;
// they end with the four newlines its argument grammar stops at.
const ARGUMENTS_SCRIPT = [" ", '{"command": "', QWEN3_SCRIPT.command, '"}', "\n\n\n\n"];
// Then it writes the call's end, `}\n</tool_call>`, and the model ends its turn (no second call).
const AFTER_CALL_SCRIPT = ["</tool_call>", "<|im_end|>"];
const SCRIPTS = [CALL_SCRIPT, ARGUMENTS_SCRIPT, AFTER_CALL_SCRIPT];

const LAYERS = 1;
const EMBEDDING = 64;
const HEADS = 4;
const HEAD_DIM = EMBEDDING / HEADS;
const FEED_FORWARD = 64;

// Dimensions of the residual stream.
const CONSTANT = 0;
const RESULT_SEEN = EMBEDDING - 1;
const TAB_SEEN = EMBEDDING - 2;
const RESPONSE_MARK = EMBEDDING - 3;
const TAB_MARK = EMBEDDING - 4;

export function writeQwen3Model(path: string, options: { contextLength?: number } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, qwen3ModelBytes(options.contextLength ?? 4096));
}

/**
 * Byte tokens (id = byte value), Qwen3's special tokens, then one token for each step of the
 * scripts longer than a byte.
 */
function scriptVocabulary() {
  const symbols = byteSymbols();
  const spell = (word: string) => [...Buffer.from(word, "utf8")].map((b) => symbols[b]).join("");
  const steps = [...SCRIPTS.flat(), QWEN3_SCRIPT.answerRaw, QWEN3_SCRIPT.answerEscaped];
  const words = [...new Set(steps)].filter(
    (word) =>
      !QWEN_CONTROL_TOKENS.includes(word) &&
      !QWEN_TAGS.includes(word) &&
      Buffer.byteLength(word) > 1,
  );
  const entries = [
    ...symbols.map((text) => ({ text, type: TOKEN_NORMAL })),
    ...QWEN_CONTROL_TOKENS.map((text) => ({ text, type: TOKEN_CONTROL })),
    ...QWEN_TAGS.map((text) => ({ text, type: TOKEN_USER_DEFINED })),
    ...words.map((word) => ({ text: spell(word), type: TOKEN_NORMAL })),
  ];
  const named = [...QWEN_CONTROL_TOKENS, ...QWEN_TAGS, ...words];
  const idOf = (word: string): number =>
    Buffer.byteLength(word) === 1 ? (Buffer.from(word)[0] as number) : 256 + named.indexOf(word);
  return { entries, idOf };
}

function qwen3ModelBytes(contextLength: number): Buffer {
  const { entries, idOf } = scriptVocabulary();
  const vocab = entries.map((entry) => entry.text);
  const tokenTypes = entries.map((entry) => entry.type);
  const imEnd = idOf("<|im_end|>");

  const u32 = (value: number): Value => ({ type: UINT32, value });
  const metadata: [string, Value][] = [
    ["general.architecture", { type: STRING, value: "qwen3" }],
    ["general.name", { type: STRING, value: "agentloop scripted Qwen3 test model" }],
    ["general.file_type", u32(FILE_TYPE_ALL_F32)],
    ["general.alignment", u32(ALIGNMENT)],
    ["qwen3.vocab_size", u32(vocab.length)],
    ["qwen3.context_length", u32(contextLength)],
    ["qwen3.embedding_length", u32(EMBEDDING)],
    ["qwen3.block_count", u32(LAYERS)],
    ["qwen3.feed_forward_length", u32(FEED_FORWARD)],
    ["qwen3.attention.head_count", u32(HEADS)],
    ["qwen3.attention.head_count_kv", u32(HEADS)],
    ["qwen3.attention.key_length", u32(HEAD_DIM)],
    ["qwen3.attention.value_length", u32(HEAD_DIM)],
    ["qwen3.rope.freq_base", { type: FLOAT32, value: 1_000_000 }],
    ["qwen3.attention.layer_norm_rms_epsilon", { type: FLOAT32, value: 1e-6 }],
    ...byteTokenizerMetadata({
      vocab,
      tokenTypes,
      endOfText: idOf("<|endoftext|>"),
      endOfTurn: imEnd,
      chatTemplate: QWEN3_TEMPLATE,
    }),
  ];

  // Each scripted token gets a state dimension of its own (after CONSTANT, before the marks).
  const states = new Map<number, number>();
  const stateOf = (id: number) => {
    let state = states.get(id);
    if (state === undefined) {
      state = 1 + states.size;
      if (state >= TAB_MARK)
        throw new Error("the script has more steps than the model has room for");
      states.set(id, state);
    }
    return state;
  };
  // Output rows: logit[token] = output[token] · normalised residual.
  const output = new Float32Array(EMBEDDING * vocab.length);
  const weigh = (token: number, dimension: number, weight: number) => {
    const at = token * EMBEDDING + dimension;
    output[at] = (output[at] ?? 0) + weight;
  };
  for (const script of SCRIPTS) {
    for (const [index, word] of script.entries()) {
      const next = script[index + 1];
      if (next !== undefined) weigh(idOf(next), stateOf(idOf(word)), 10);
    }
  }
  // After "\n" with a tool result in view: answer (which one, by whether a tab came), not think.
  weigh(idOf("<think>"), RESULT_SEEN, -20);
  weigh(idOf(QWEN3_SCRIPT.answerRaw), RESULT_SEEN, 6);
  weigh(idOf(QWEN3_SCRIPT.answerRaw), TAB_SEEN, 6);
  weigh(idOf(QWEN3_SCRIPT.answerEscaped), RESULT_SEEN, 9);
  weigh(idOf(QWEN3_SCRIPT.answerEscaped), TAB_SEEN, -6);
  for (const answer of [QWEN3_SCRIPT.answerRaw, QWEN3_SCRIPT.answerEscaped]) {
    weigh(imEnd, stateOf(idOf(answer)), 30);
  }

  const embeddings = new Float32Array(EMBEDDING * vocab.length);
  for (let token = 0; token < vocab.length; token++) {
    embeddings[token * EMBEDDING + CONSTANT] = 1;
    const state = states.get(token);
    if (state !== undefined) embeddings[token * EMBEDDING + state] = 1;
  }
  embeddings[idOf("<tool_response>") * EMBEDDING + RESPONSE_MARK] = 1;
  embeddings[idOf("\t") * EMBEDDING + TAB_MARK] = 1;

  // Head 0 finds `<tool_response>`, head 1 a tab. A head's query is the constant dimension, its
  // key the mark, both in the head's last dimension: the one RoPE turns least (about 0.02
  // radians over 4,096 positions at this base), so a marker is found wherever it is.
  const matrix = () => new Float32Array(EMBEDDING * EMBEDDING);
  const query = matrix();
  const key = matrix();
  const value = matrix();
  const attentionOut = matrix();
  const set = (m: Float32Array, row: number, column: number, weight: number) => {
    m[row * EMBEDDING + column] = weight;
  };
  for (const [head, mark, seen] of [
    [0, RESPONSE_MARK, RESULT_SEEN],
    [1, TAB_MARK, TAB_SEEN],
  ] as const) {
    const last = head * HEAD_DIM + HEAD_DIM - 1;
    set(query, last, CONSTANT, 1);
    set(key, last, mark, 1);
    set(value, head * HEAD_DIM, mark, 1);
    // The marker's value is its normalised mark, sqrt(64 / 2) = 5.66: scaled back to about 1.
    set(attentionOut, seen, head * HEAD_DIM, 1 / Math.sqrt(EMBEDDING / 2));
  }
  // q_norm and k_norm normalise each head's query and key (to sqrt(16) = 4 in that dimension),
  // then scale them by 4: a marker scores 4 * 4 * 4 * 4 / sqrt(16) = 64, everything else 0.
  const headNorm = new Float32Array(HEAD_DIM).fill(4);
  const ones = (n: number) => new Float32Array(n).fill(1);

  const tensors: Tensor[] = [
    { name: "token_embd.weight", dims: [EMBEDDING, vocab.length], data: embeddings },
    { name: "output_norm.weight", dims: [EMBEDDING], data: ones(EMBEDDING) },
    { name: "output.weight", dims: [EMBEDDING, vocab.length], data: output },
  ];
  // The feed-forward block adds nothing: its weights are zeros.
  const zeros = (n: number) => new Float32Array(n);
  for (let layer = 0; layer < LAYERS; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [EMBEDDING], data: ones(EMBEDDING) },
      { name: `${blk}.attn_q.weight`, dims: [EMBEDDING, EMBEDDING], data: query },
      { name: `${blk}.attn_k.weight`, dims: [EMBEDDING, EMBEDDING], data: key },
      { name: `${blk}.attn_v.weight`, dims: [EMBEDDING, EMBEDDING], data: value },
      { name: `${blk}.attn_output.weight`, dims: [EMBEDDING, EMBEDDING], data: attentionOut },
      { name: `${blk}.attn_q_norm.weight`, dims: [HEAD_DIM], data: headNorm },
      { name: `${blk}.attn_k_norm.weight`, dims: [HEAD_DIM], data: headNorm },
      { name: `${blk}.ffn_norm.weight`, dims: [EMBEDDING], data: ones(EMBEDDING) },
      {
        name: `${blk}.ffn_gate.weight`,
        dims: [EMBEDDING, FEED_FORWARD],
        data: zeros(EMBEDDING * FEED_FORWARD),
      },
      {
        name: `${blk}.ffn_up.weight`,
        dims: [EMBEDDING, FEED_FORWARD],
        data: zeros(EMBEDDING * FEED_FORWARD),
      },
      {
        name: `${blk}.ffn_down.weight`,
        dims: [FEED_FORWARD, EMBEDDING],
        data: zeros(FEED_FORWARD * EMBEDDING),
      },
    );
  }
  return ggufBytes(metadata, tensors);
}
