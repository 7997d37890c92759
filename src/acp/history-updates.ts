// A saved session's history as the updates that would have shown it (`session/load` replays
// it before answering): each prompt as a user chunk, the answers and thinking as agent chunks,
// each tool call with its result. The notes the parts put beside a prompt are not the user's
// words, and are left out; a file's diff is not kept in the history, so a change shows its result.
// Loading: https://agentclientprotocol.com/protocol/v1/session-setup#loading-sessions

import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message } from "../core/messages.js";
import { announcedCall, finishedCall, textChunk } from "./tool-calls.js";

export function historyUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  return messages.flatMap((message) => messageUpdates(message, cwd));
}

function messageUpdates(message: Message, cwd: string): SessionUpdate[] {
  if (message.role === "user") {
    if (typeof message.content === "string") {
      return [textChunk("user_message_chunk", message.content)];
    }
    const results = message.content.filter((block) => block.type === "tool_result");
    if (results.length === 0) {
      const prompt = message.content.find((block) => block.type === "text");
      return prompt ? [textChunk("user_message_chunk", prompt.text)] : [];
    }
    return results.map((result) => ({
      sessionUpdate: "tool_call_update",
      ...finishedCall(result, null),
    }));
  }
  return message.content.flatMap((block): SessionUpdate[] => {
    switch (block.type) {
      case "text":
        return [textChunk("agent_message_chunk", block.text)];
      case "thinking":
        return [textChunk("agent_thought_chunk", block.thinking)];
      case "tool_use":
        return [{ sessionUpdate: "tool_call", ...announcedCall(block, cwd) }];
      default:
        return [];
    }
  });
}
