// Ids for tool calls that a model or server sent without one.

import { createHash } from "node:crypto";
import type { Message } from "../core/messages.js";

/**
 * The prefix of ids invented for calls that come without one (call_HASH_i). The hash of the
 * history sent makes them unique in a session, also after a compaction has made the history
 * shorter, and the same on every run of the same conversation.
 */
export function callIdPrefix(messages: readonly Message[]): string {
  return `call_${createHash("sha256").update(JSON.stringify(messages)).digest("hex").slice(0, 12)}`;
}

/**
 * `callIdPrefix` when first asked for: hashing the whole history is worth it only for a reply
 * with a call that came without an id.
 */
export function lazyCallIdPrefix(messages: readonly Message[]): () => string {
  let prefix: string | undefined;
  return () => {
    prefix ??= callIdPrefix(messages);
    return prefix;
  };
}
