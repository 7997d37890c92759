// The chat wrapper that writes the conversation for the local model: the one node-llama-cpp
// chooses for the model, changed where it writes something other than what the model's own
// chat template writes (the template is what the model was trained on). What each family's
// template does, and why each choice below, is in docs/local-model-prompt.md.

import type { ChatHistoryItem, ChatWrapper, LlamaModel, LlamaText } from "node-llama-cpp";

/** Where the model's template puts whitespace that is not part of any message. */
export interface TemplateLayout {
  /** Between the text of a reply and the first tool call after it. */
  beforeCall: string;
  /** After the model's thinking, before what follows it. */
  afterThought: string;
}

export interface LocalChatWrapper {
  wrapper: ChatWrapper;
  layout: TemplateLayout;
  /** Whether the wrapper reads the model's thinking apart from its answer. */
  thinks: boolean;
}

const NO_LAYOUT: TemplateLayout = { beforeCall: "", afterThought: "" };

/**
 * Qwen3's template: `content + "\n" + <tool_call>` when the reply has text, and
 * `"<think>\n" + reasoning + "\n</think>\n\n" + content`.
 */
const QWEN3_LAYOUT: TemplateLayout = { beforeCall: "\n", afterThought: "\n\n" };
/** Qwen3.5's template: `content + "\n\n" + <tool_call>`, and the same thinking as Qwen3's. */
const QWEN3_5_LAYOUT: TemplateLayout = { beforeCall: "\n\n", afterThought: "\n\n" };

export async function chatWrapperFor(model: LlamaModel): Promise<LocalChatWrapper> {
  const engine = await import("node-llama-cpp");
  const wrapper = engine.resolveChatWrapper(model);
  const thinks = wrapper.settings.segments?.thought !== undefined;
  if (wrapper instanceof engine.QwenChatWrapper) {
    // Qwen's template writes a tool message's content as it is; node-llama-cpp would send a
    // text result as a JSON string, its newlines and quotes escaped.
    const asIs = withTextResultsAsIs(wrapper, engine.LlamaText);
    if (wrapper.variation === "3") return { wrapper: asIs, layout: QWEN3_LAYOUT, thinks };
    return { wrapper: withToolsBeforeSystem(asIs), layout: QWEN3_5_LAYOUT, thinks };
  }
  if (
    wrapper instanceof engine.ChatMLChatWrapper ||
    wrapper instanceof engine.GemmaChatWrapper ||
    wrapper instanceof engine.GeneralChatWrapper
  ) {
    // These templates have no tool calls; the wrapper writes them in node-llama-cpp's own
    // syntax, where nothing says a result must be JSON, so a text result keeps its lines too.
    return { wrapper: withTextResultsAsIs(wrapper, engine.LlamaText), layout: NO_LAYOUT, thinks };
  }
  // Llama 3.x's template JSON-encodes a text result itself (`tojson`: a string is iterable), and
  // Mistral's puts it inside a JSON object: node-llama-cpp already writes both that way.
  return { wrapper, layout: NO_LAYOUT, thinks };
}

/**
 * The wrapper, writing a tool result that is text between its result prefix and suffix as it
 * is; other results (none of ours) as node-llama-cpp writes them. The wrappers this is used for
 * have no `{{functionName}}` placeholders in their prefix or suffix.
 */
function withTextResultsAsIs<Wrapper extends ChatWrapper>(
  wrapper: Wrapper,
  Text: typeof LlamaText,
): Wrapper {
  const asJson = wrapper.generateFunctionCallResult.bind(wrapper);
  const { prefix, suffix } = wrapper.settings.functions.result;
  wrapper.generateFunctionCallResult = (name, params, result) =>
    typeof result === "string" ? Text([prefix, result, suffix]) : asJson(name, params, result);
  return wrapper;
}

/**
 * Qwen3.5's template opens the system message with the tools and puts the system prompt after
 * them; node-llama-cpp puts the tools after it, as Qwen3's template does. The wrapper joins
 * system texts with a blank line, as the template does.
 */
function withToolsBeforeSystem<Wrapper extends ChatWrapper>(wrapper: Wrapper): Wrapper {
  const afterSystem = wrapper.addAvailableFunctionsSystemMessageToHistory.bind(wrapper);
  wrapper.addAvailableFunctionsSystemMessageToHistory = (history, functions, options) => {
    const withTools = afterSystem(history, functions, options);
    if (withTools.length === history.length) return withTools;
    const at = withTools.findIndex((item, index) => item !== history[index]);
    return [withTools[at] as ChatHistoryItem, ...withTools.filter((_, index) => index !== at)];
  };
  return wrapper;
}
