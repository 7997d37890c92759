// A session line can be valid JSON and still hold content agentloop never writes (a
// hand-edited file, another tool's transcript). The page checks each block before trusting
// its shape, and shows anything else as raw JSON instead of breaking the replay.

import type { AssistantBlock, UserBlock } from "../core/messages.js";

export function isKnownBlock(value: unknown): value is UserBlock | AssistantBlock {
  if (typeof value !== "object" || value === null) return false;
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "tool_use":
      return typeof block.id === "string" && typeof block.name === "string";
    case "tool_result":
      return typeof block.tool_use_id === "string";
    case "thinking":
      return typeof block.thinking === "string";
    case "redacted_thinking":
      return typeof block.data === "string";
    case "opaque":
      return typeof block.item === "object" && block.item !== null;
    default:
      return false;
  }
}
