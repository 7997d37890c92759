// One request of the memory's own, without tools: the session's model reads a text and answers
// in a line format the memory parses. Neither the answer nor the request joins the history.

import { textOf } from "../core/messages.js";
import type { Provider } from "../core/provider.js";

/** How long one such request may take, retries included, before it is given up. */
const REQUEST_TIMEOUT_MS = 180_000;

/** The reply's text; throws what the provider threw (the caller says it in an event). */
export async function askModel(provider: Provider, system: string, text: string): Promise<string> {
  const stream = provider.stream({
    system,
    messages: [{ role: "user", content: text }],
    tools: [],
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  for (;;) {
    const step = await stream.next();
    if (step.done) return textOf(step.value.message);
  }
}
