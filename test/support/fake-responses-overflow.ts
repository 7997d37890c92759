// How the Responses API turns away a streamed request too long for the model's window: not
// with a 400, as Chat Completions does, but with a 200 whose stream starts the response and
// then fails it. After response.created and response.in_progress come an `error` event whose
// error is nested (type, code, message, param: the form clients have quoted from the wire,
// https://github.com/dyad-sh/dyad/issues/1672, rather than the flat one of the API reference)
// and a `response.failed` whose response carries the same code (the form Codex's own SSE tests
// use: openai/codex, codex-rs/codex-api/src/sse/responses.rs, context_window_error_is_fatal).

import { randomUUID } from "node:crypto";

/** OpenAI's sentence for it, which names no numbers. */
export const OVER_WINDOW_MESSAGE =
  "Your input exceeds the context window of this model. Please adjust your input and try again.";

/** The SSE frames of the stream that refuses a request over the window. */
export function overWindowFrames(model: string): string[] {
  const id = `resp_${randomUUID().replaceAll("-", "")}`;
  const response = (status: string, extra: object = {}) => ({
    id,
    object: "response",
    created_at: 1_700_000_000,
    model,
    status,
    output: [],
    store: false,
    ...extra,
  });
  const error = { code: "context_length_exceeded", message: OVER_WINDOW_MESSAGE };
  const events: [string, object][] = [
    ["response.created", { response: response("in_progress") }],
    ["response.in_progress", { response: response("in_progress") }],
    ["error", { error: { type: "invalid_request_error", ...error, param: "input" } }],
    ["response.failed", { response: response("failed", { error, usage: null }) }],
  ];
  return events.map(
    ([type, data], sequence) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`,
  );
}
