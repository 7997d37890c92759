// One request of the memory's own, without tools: the session's model reads a text and answers
// in a line format the memory parses. Neither the answer nor the request joins the history.

import { textOf } from "../core/messages.js";
import type { Provider } from "../core/provider.js";

/** How long one such request may take, retries included, before it is given up. */
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * The reply's text; throws what the provider threw (the caller says it in an event). `signal`:
 * the person's interrupt, where there is one (a compaction's).
 */
export async function askModel(
  provider: Provider,
  request: { system: string; text: string; signal?: AbortSignal },
): Promise<string> {
  // Not AbortSignal.any: agentloop runs on Node 20.0, and it came in 20.3.
  const stop = new AbortController();
  const timer = setTimeout(
    () => stop.abort(new Error("the request took too long")),
    REQUEST_TIMEOUT_MS,
  );
  const interrupted = () => stop.abort(request.signal?.reason);
  request.signal?.addEventListener("abort", interrupted, { once: true });
  try {
    const stream = provider.stream({
      system: request.system,
      messages: [{ role: "user", content: request.text }],
      tools: [],
      signal: stop.signal,
    });
    for (;;) {
      const step = await stream.next();
      if (step.done) return textOf(step.value.message);
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", interrupted);
  }
}
