// The fast path of transcript repair (repair.ts). Almost every request carries the history
// the previous request carried, already valid, plus one reply and its results; running every
// repair over it (each pass copying the whole history) cost more per turn the longer the
// session grew. This check remembers the last history it found valid, and when the next one
// starts with the same messages (the same objects: messages are never changed once recorded),
// reads only the messages added since. When it says yes, the repairs would change nothing, so
// they are skipped. It runs once a request, too rarely for the optimising compiler to take it
// up, so it keeps to plain indexed loops, which run fast unoptimised too.

import { hasName, type Message, type ToolUseBlock, type UserBlock } from "../core/messages.js";

/** The last history found valid, and the ids of its tool calls. */
let lastValid: { messages: readonly Message[]; callIds: Set<string> } = {
  messages: [],
  callIds: new Set(),
};

/**
 * True when prepareForRequest would send `messages` exactly as they are, with no repair: roles
 * alternate from the user, nothing is empty, every tool call has a name and an id of its own and
 * is answered first and in order in the next message, and nothing else is answered. Anything
 * unusual, even what needs no repair, answers false and takes the full walk.
 */
export function isValidTranscript(messages: readonly Message[]): boolean {
  const known = startsWith(messages, lastValid.messages);
  // The ids are copied only when the walk starts over: a valid history that grew needs its own.
  const callIds = known ? lastValid.callIds : new Set<string>();
  const valid = isValidFrom(known ? lastValid.messages.length : 0, messages, callIds);
  lastValid = valid ? { messages: [...messages], callIds } : { messages: [], callIds: new Set() };
  return valid;
}

/** The ids of the tool calls in `messages`, when they are the history last found valid. */
export function knownCallIds(messages: readonly Message[]): ReadonlySet<string> | null {
  const same =
    messages.length === lastValid.messages.length && startsWith(messages, lastValid.messages);
  return same ? lastValid.callIds : null;
}

function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length === 0 || messages.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index += 1) {
    if (messages[index] !== prefix[index]) return false;
  }
  return true;
}

/**
 * Checks the messages from `start` on, the ones before it being a valid history whose call ids
 * are in `callIds` (a valid history ends with no call unanswered).
 */
function isValidFrom(start: number, messages: readonly Message[], callIds: Set<string>) {
  let calls: ToolUseBlock[] = [];
  for (let index = start; index < messages.length; index += 1) {
    const message = messages[index] as Message;
    if (message.role !== (index % 2 === 0 ? "user" : "assistant")) return false;
    if (message.role === "user") {
      if (!answersExactly(message.content, calls)) return false;
      calls = [];
      continue;
    }
    const { content } = message;
    if (content.length === 0) return false;
    calls = [];
    for (let position = 0; position < content.length; position += 1) {
      const block = content[position];
      if (block?.type === "text" && block.text.trim() === "") return false;
      if (block?.type !== "tool_use") continue;
      if (!hasName(block) || callIds.has(block.id)) return false;
      callIds.add(block.id);
      calls.push(block);
    }
  }
  // A call still unanswered at the end, or a final reply ending in whitespace, needs a repair.
  const last = messages.at(-1);
  if (last?.role !== "assistant") return true;
  const block = last.content.at(-1);
  return calls.length === 0 && (block?.type !== "text" || block.text === block.text.trimEnd());
}

/** The user message holds one result per call, first and in call order, and no other result. */
function answersExactly(content: string | UserBlock[], calls: ToolUseBlock[]): boolean {
  if (typeof content === "string") return calls.length === 0 && content.trim() !== "";
  if (content.length === 0 || content.length < calls.length) return false;
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index] as UserBlock;
    if (block.type === "text") {
      if (block.text.trim() === "" || index < calls.length) return false;
      continue;
    }
    if (block.tool_use_id !== calls[index]?.id) return false;
    if (block.is_error && (typeof block.content !== "string" || block.content.trim() === "")) {
      return false;
    }
  }
  return true;
}
