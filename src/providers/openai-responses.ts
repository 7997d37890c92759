// The OpenAI Responses API as a Provider: the protocol OpenAI's current models need for tools
// (GPT-5.6 and GPT-6 refuse function tools on Chat Completions). It is stateless on purpose:
// `store: false` keeps nothing on OpenAI's side (the session file is the record), and
// `include: ["reasoning.encrypted_content"]` brings each reasoning item back encrypted, to be
// sent with the next request as it came. See
// https://developers.openai.com/api/docs/guides/reasoning and
// https://developers.openai.com/api/docs/guides/migrate-to-responses.

import type OpenAI from "openai";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import { createOpenAIFamilyProvider, type OpenAIProviderOptions } from "./openai-client.js";
import type { ServerContext } from "./openai-errors.js";
import type { ModelReply, Provider, StreamEvent } from "./provider.js";
import { addEvent, finishResponse, startResponse } from "./responses-reply.js";
import { toResponsesInput, toResponsesTools } from "./responses-request.js";

export type ResponsesProviderOptions = OpenAIProviderOptions;

export function createResponsesProvider(options: ResponsesProviderOptions): Provider {
  const provider = createOpenAIFamilyProvider(
    options,
    "responses",
    (client, server) => (request, messages) => {
      const body: ResponseCreateParamsStreaming = {
        model: options.model,
        input: toResponsesInput(messages, options.model),
        stream: true,
        store: false,
      };
      if (reasons(options.model)) {
        body.include = ["reasoning.encrypted_content"];
        // Summaries are what a person may read of the reasoning; "auto" picks the richest the
        // model offers.
        body.reasoning = { summary: "auto", ...(options.effort ? { effort: options.effort } : {}) };
      }
      if (request.system !== "") body.instructions = request.system;
      if (request.tools.length > 0) body.tools = toResponsesTools(request.tools);
      // The sources a search read, for the event that shows it (src/web/web-search.ts).
      if (body.tools?.some((tool) => tool.type === "web_search")) {
        body.include = [...(body.include ?? []), "web_search_call.action.sources"];
      }
      if (request.toolChoice === "none" && body.tools) body.tool_choice = "none";
      if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
      return (signal, alive) => streamOnce(client, body, server, signal, alive);
    },
  );
  // OpenAI's own API runs the hosted web search; a compatible server's Responses API may not.
  return { ...provider, webSearch: (options.name ?? "openai") === "openai" };
}

/**
 * Whether the model reasons, so that the request may carry reasoning options: the models that
 * do not (GPT-4.x, GPT-4o, GPT-3.5, the `-chat-latest` aliases) answer them with a 400. Every
 * model OpenAI has released since o1 and GPT-5 reasons, so the list of those that do not is
 * the one that stays short.
 */
function reasons(model: string): boolean {
  return !/^(gpt-4|gpt-3\.5|chatgpt-)|-chat-latest$/.test(model.replace(/^.*\//, ""));
}

/**
 * One request and its streamed reply, nothing retried. `alive` is called for every event, so
 * a long call arriving in pieces, or reasoning that shows nothing, does not look stalled.
 */
async function* streamOnce(
  client: OpenAI,
  body: ResponseCreateParamsStreaming,
  server: ServerContext,
  signal: AbortSignal,
  alive: () => void,
): AsyncGenerator<StreamEvent, ModelReply> {
  const reply = startResponse();
  const stream = await client.responses.create(body, { signal });
  for await (const event of stream) {
    alive();
    const shown = addEvent(reply, event, server);
    if (shown) yield shown;
  }
  // The SDK ends the iteration quietly when aborted: make the interruption visible.
  signal.throwIfAborted();
  return finishResponse(reply, body.model as string, client.baseURL);
}
