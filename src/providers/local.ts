// A GGUF model run inside this process by llama.cpp (through node-llama-cpp), behind the same
// Provider seam as the HTTP APIs: no key, no server. The model's own chat template formats
// the conversation, and tool-call arguments are generated under a grammar made from each
// tool's JSON schema, so even a small model cannot produce broken JSON. The model and its
// context stay loaded for the whole session.

import type {
  ChatModelFunctions,
  Llama,
  LlamaChatResponse,
  LlamaChatResponseChunk,
  LlamaContextSequence,
  LlamaJsonSchemaGrammar,
  LlamaModel,
} from "node-llama-cpp";
import { ConfigError, ProviderError } from "../core/errors.js";
import { type AssistantBlock, emptyUsage, type StopReason, type Usage } from "../core/messages.js";
import { plural } from "../core/wording.js";
import { describeImages } from "../images/describe-images.js";
import { reasoningFor } from "../transcript/reasoning.js";
import { prepareForRequest } from "../transcript/repair.js";
import { lazyCallIdPrefix } from "./call-ids.js";
import { chatWrapperFor } from "./local-chat-wrapper.js";
import { toChatFunctions, toChatHistory, toGrammarSchema } from "./local-history.js";
import { ReplyStream, withoutLayoutNewlines } from "./local-stream.js";
import type { ModelReply, Provider, ToolDefinition } from "./provider.js";

export interface LocalProviderOptions {
  /** The .gguf file to run. */
  modelPath: string;
  /** The name people see (the file's name, or the reference it came from). */
  model: string;
  /** The most tokens one reply may use. */
  maxTokens?: number;
  /** The largest context to allocate, in tokens; less is used when memory is short. */
  maxContextSize?: number;
  /** "auto" uses CUDA, Vulkan or Metal when there is one, else the CPU; false: the CPU. */
  gpu?: "auto" | false;
  /** CPU threads; default: the cores that do the math (llama.cpp's own default oversubscribes small machines). */
  threads?: number;
  /**
   * "required": every reply is one tool call, its JSON generated under a grammar covering every
   * tool, for weak models that never call on their own. Default "auto": the model chooses.
   */
  toolChoice?: "auto" | "required";
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
}

export interface LocalProvider extends Provider {
  /** The context size allocated, in tokens: the window compaction fits the history into. */
  readonly contextWindow: number;
  /** Where it runs, for the start-up line: "CPU, 8 threads" or "CUDA (NVIDIA RTX 4090)". */
  readonly device: string;
  dispose(): Promise<void>;
}

export const DEFAULT_LOCAL_MAX_TOKENS = 4096;
/** Sampling that small instruction-tuned models are published with (Qwen3's, for one). */
const SAMPLING = { temperature: 0.7, topP: 0.8, topK: 20, minP: 0 };
const DEFAULT_MAX_CONTEXT = 16_384;

export async function createLocalProvider(options: LocalProviderOptions): Promise<LocalProvider> {
  const engine = await import("node-llama-cpp");
  let llama: Llama;
  try {
    // Prebuilt binaries only: a session never starts compiling llama.cpp.
    llama = await engine.getLlama({
      gpu: options.gpu ?? "auto",
      build: "never",
      logLevel: engine.LlamaLogLevel.error,
    });
  } catch (error) {
    throw new ConfigError(
      `The local model engine (node-llama-cpp) could not start on this machine: ${(error as Error).message}`,
    );
  }
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: options.modelPath });
  } catch (error) {
    await llama.dispose();
    throw new ConfigError(
      `Cannot load the model ${options.modelPath} (${(error as Error).message}); check that it is a complete .gguf file (a damaged download can be deleted and fetched again).`,
    );
  }
  const threads = options.threads ?? llama.cpuMathCores;
  const context = await model.createContext({
    contextSize: {
      max: Math.min(options.maxContextSize ?? DEFAULT_MAX_CONTEXT, model.trainContextSize),
    },
    threads,
  });
  const sequence = context.getSequence();
  const { wrapper, layout, thinks } = await chatWrapperFor(model);
  const chat = new engine.LlamaChat({ contextSequence: sequence, chatWrapper: wrapper });
  const maxTokens = options.maxTokens ?? DEFAULT_LOCAL_MAX_TOKENS;
  const grammars = new WeakMap<ToolDefinition[], LlamaJsonSchemaGrammar<never>>();
  const callGrammar = async (tools: ToolDefinition[]) => {
    let grammar = grammars.get(tools);
    if (!grammar) {
      grammar = (await llama.createGrammarForJsonSchema(toolCallSchema(tools) as never)) as never;
      grammars.set(tools, grammar as never);
    }
    return grammar as LlamaJsonSchemaGrammar<never>;
  };

  const provider: LocalProvider = {
    name: "local",
    model: options.model,
    maxOutputTokens: maxTokens,
    contextWindow: context.contextSize,
    device: llama.gpu
      ? `${llama.gpu.toUpperCase()} (${(await llama.getGpuDeviceNames()).join(", ")})`
      : `CPU, ${plural(threads, "thread")}`,
    async *stream(request) {
      // The models run here read text: each image reaches them as one line saying what it was.
      const seen = describeImages(request.messages);
      const sendable = reasoningFor(seen, { model: options.model, protocol: "local" });
      const { messages, repairs } = prepareForRequest(sendable);
      for (const repair of repairs) options.onRepair?.(repair);
      const history = toChatHistory(request.system, messages, { layout, thinks });
      const functions = toChatFunctions(request.tools);
      const promptTokens = chat.chatWrapper
        .generateContextState({
          chatHistory: history,
          availableFunctions: functions,
        })
        .contextText.tokenize(model.tokenizer).length;
      const room = context.contextSize - Math.min(maxTokens, Math.floor(context.contextSize / 4));
      if (promptTokens > room) {
        // Rather than let llama.cpp drop the start of the conversation, say so: compaction acts.
        const message = `The conversation (${promptTokens} tokens) is too long for the local model's context of ${context.contextSize} tokens.`;
        throw new ProviderError("context_too_long", message, undefined, context.contextSize);
      }
      const before = sequence.tokenMeter.getState();
      const required = options.toolChoice === "required" && request.tools.length > 0;
      const deltas = new ReplyStream();
      const settings = {
        ...SAMPLING,
        signal: request.signal,
        // Never past the end of the context, where llama.cpp would drop the conversation's start.
        maxTokens: Math.min(maxTokens, context.contextSize - promptTokens),
        onResponseChunk: (chunk: LlamaChatResponseChunk) => deltas.push(chunk),
      };
      const generation = required
        ? callGrammar(request.tools).then((grammar) =>
            chat.generateResponse(history, { ...settings, onResponseChunk: undefined, grammar }),
          )
        : chat.generateResponse(history, {
            ...settings,
            functions,
          });
      generation.then(
        () => deltas.end(),
        () => deltas.end(),
      );
      yield* deltas;
      let response: LlamaChatResponse<ChatModelFunctions>;
      try {
        response = (await generation) as LlamaChatResponse<ChatModelFunctions>;
      } catch (error) {
        request.signal.throwIfAborted();
        throw new ProviderError("server", `The local model failed: ${(error as Error).message}`);
      }
      const usage = usageSince(sequence, before);
      const prefix = lazyCallIdPrefix(request.messages);
      const reply = required
        ? forcedCallReply(response, prefix(), usage)
        : toModelReply(response, prefix, usage);
      return { ...reply, message: { ...reply.message, model: options.model } };
    },
    async dispose() {
      await chat.dispose();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
  return provider;
}

function toModelReply(
  response: LlamaChatResponse<ChatModelFunctions>,
  idPrefix: () => string,
  usage: Usage,
): ModelReply {
  const content: AssistantBlock[] = [];
  for (const part of response.fullResponse) {
    if (typeof part === "string") {
      const text = withoutLayoutNewlines(part);
      if (text.trim() !== "") content.push({ type: "text", text });
    } else if (part.segmentType === "thought") {
      const thinking = withoutLayoutNewlines(part.text);
      if (thinking.trim() !== "") content.push({ type: "thinking", thinking });
    }
  }
  for (const [index, call] of (response.functionCalls ?? []).entries()) {
    content.push({
      type: "tool_use",
      id: `${idPrefix()}_${index}`,
      name: call.functionName,
      input: call.params ?? {},
    });
  }
  const stopReason = content.some((block) => block.type === "tool_use")
    ? "tool_use"
    : stopReasonOf(response.metadata.stopReason);
  return {
    message: { role: "assistant", content },
    stopReason,
    rawStopReason: response.metadata.stopReason,
    usage,
  };
}

/** The reply generated under the tool-call grammar: `{"name": ..., "input": {...}}`. */
function forcedCallReply(
  response: LlamaChatResponse<ChatModelFunctions>,
  idPrefix: string,
  usage: Usage,
): ModelReply {
  const raw = response.metadata.stopReason;
  if (raw === "maxTokens") {
    // Cut off before the JSON closed: the loop answers a cut-off call without running it.
    return {
      message: { role: "assistant", content: [{ type: "text", text: response.response || "…" }] },
      stopReason: "max_tokens",
      rawStopReason: raw,
      usage,
    };
  }
  // The grammar made it valid JSON of this shape (JSON.parse, not the grammar's own parse,
  // which counts the characters of a string differently when the model wrote broken UTF-8).
  const call = JSON.parse(response.response) as { name: string; input: unknown };
  const block: AssistantBlock = {
    type: "tool_use",
    id: `${idPrefix}_0`,
    name: call.name,
    input: call.input,
  };
  return {
    message: { role: "assistant", content: [block] },
    stopReason: "tool_use",
    rawStopReason: raw,
    usage,
  };
}

/** One schema for "a call of any tool": its name, and input that fits that tool's schema. */
function toolCallSchema(tools: readonly ToolDefinition[]) {
  return {
    oneOf: tools.map((tool) => ({
      type: "object",
      properties: { name: { const: tool.name }, input: toGrammarSchema(tool.input_schema) },
    })),
  };
}

function stopReasonOf(reason: string): StopReason {
  switch (reason) {
    case "eogToken":
    case "stopGenerationTrigger":
      return "end_turn";
    case "functionCalls":
      return "tool_use";
    case "maxTokens":
      return "max_tokens";
    case "customStopTrigger":
      return "stop_sequence";
    default:
      return "unknown";
  }
}

/**
 * Tokens of this request: those evaluated anew, those reused from the context left by the
 * previous request (reported as read from a cache), and those generated.
 */
function usageSince(
  sequence: LlamaContextSequence,
  before: ReturnType<LlamaContextSequence["tokenMeter"]["getState"]>,
): Usage {
  const after = sequence.tokenMeter.getState();
  const evaluated = after.usedInputTokens - before.usedInputTokens;
  const generated = after.usedOutputTokens - before.usedOutputTokens;
  const prompt = Math.max(evaluated, sequence.nextTokenIndex - generated);
  return {
    ...emptyUsage(),
    input_tokens: evaluated,
    cache_read_input_tokens: prompt - evaluated,
    output_tokens: generated,
  };
}
