// How a compaction reads, on its boundary in the conversation and in the facts of the first
// request that sent the compacted history.

import type { CompactionItem } from "../timeline.js";
import { formatCount } from "./format.js";

/** "cleared 12 old tool results, 182,000 → 41,000 tokens" or "summarised 84 messages, …". */
export function describeCompaction(item: CompactionItem): string {
  const what =
    item.method === "clear"
      ? `cleared ${plural(item.count, "old tool result")}`
      : `summarised ${plural(item.count, "message")}`;
  return `${what}, ${tokens(item.tokensBefore)} → ${tokens(item.tokensAfter)} tokens`;
}

/** Why it happened, and whether the loop then sent a refused request again. */
export function compactionReason(item: CompactionItem): string {
  const reason = {
    auto: `before a request, to fit the ${tokens(item.contextWindow)}-token context window`,
    too_long: "the API said the request was too long",
    manual: "asked for by the user",
  }[item.trigger];
  const parts = [`${item.trigger}: ${reason ?? "reason not recorded"}`];
  if (item.transitionReason) parts.push(`transition ${item.transitionReason}`);
  return parts.join(" · ");
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}

function tokens(count: number | null): string {
  return count === null ? "?" : formatCount(count);
}
