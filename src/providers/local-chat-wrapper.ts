// The chat wrapper that writes the conversation for the local model: the one node-llama-cpp
// chooses for the model, changed where it writes something other than what the model's own
// chat template writes (the template is what the model was trained on). What each family's
// template does, and why each choice below, is in docs/local-model-prompt.md.

import type { ChatWrapper, LlamaModel, LlamaText } from "node-llama-cpp";

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
const QWEN_LAYOUT: TemplateLayout = { beforeCall: "\n", afterThought: "\n\n" };

export async function chatWrapperFor(model: LlamaModel): Promise<LocalChatWrapper> {
  const engine = await import("node-llama-cpp");
  const wrapper = engine.resolveChatWrapper(model);
  const thinks = wrapper.settings.segments?.thought !== undefined;
  if (wrapper instanceof engine.QwenChatWrapper) {
    // Qwen's template writes a tool message's content as it is; node-llama-cpp would send a
    // text result as a JSON string, its newlines and quotes escaped. Only Qwen3's layout was
    // checked, not that of the "3.5" variation's templates.
    const layout = wrapper.variation === "3" ? QWEN_LAYOUT : NO_LAYOUT;
    return { wrapper: withTextResultsAsIs(wrapper, engine.LlamaText), layout, thinks };
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
