// Transcript repair at the provider boundary. Whatever happened earlier (an interrupt between
// a tool call and its result, a crash, a resumed session, a provider that reuses ids), the
// request we send must be valid: every tool_use answered by exactly one tool_result in the
// next user message, results first and in order, no empty text, roles alternating from the
// user. The stored transcript is never changed; each repair is described in one sentence.
// A reply is repaired once as it arrives (repairReply), before the loop runs or records it.

import {
  type AssistantBlock,
  type AssistantMessage,
  hasName,
  type Message,
  resultText,
  type ToolResultBlock,
  type ToolUseBlock,
  type UserBlock,
  type UserMessage,
} from "../core/messages.js";
import { isValidTranscript, knownCallIds } from "./valid.js";

export interface PreparedTranscript {
  messages: Message[];
  /** One sentence per repair, for logs. Empty when the transcript was already valid. */
  repairs: string[];
}

export const MISSING_RESULT = "No result was recorded (the run was interrupted).";
const EMPTY_ERROR = "The tool failed without printing anything.";

/** Returns a copy of the messages that the API accepts, and what had to change. */
export function prepareForRequest(messages: readonly Message[]): PreparedTranscript {
  if (isValidTranscript(messages)) return { messages: [...messages], repairs: [] };
  // @step session.repair: A history the API would refuse is repaired in the request only.
  return repairTranscript(messages);
}

/**
 * Every repair, each walking the whole history: what prepareForRequest does when the quick
 * check (valid.ts) finds something to change. Exported so tests can hold the two
 * to the same answers.
 */
export function repairTranscript(messages: readonly Message[]): PreparedTranscript {
  const repairs: string[] = [];
  let current = [...messages];
  // A repair can expose another (dropping an orphan result can empty a message, whose
  // removal brings two assistant messages together), so repeat until nothing changes.
  for (let pass = 0; pass < 5; pass += 1) {
    const before = repairs.length;
    current = dropEmptyContent(current, repairs);
    current = dropLeadingAssistants(current, repairs);
    current = mergeSameRole(current);
    current = renameRepeatedIds(current, repairs);
    current = dropNamelessCalls(current, repairs);
    current = pairToolCalls(current, repairs);
    if (repairs.length === before) break;
  }
  current = trimFinalAssistant(current, repairs);
  return { messages: current, repairs };
}

function dropEmptyContent(messages: Message[], repairs: string[]): Message[] {
  const kept: Message[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") {
      if (message.content.trim()) kept.push(message);
      else repairs.push("Dropped an empty user message.");
      continue;
    }
    const original: (UserBlock | AssistantBlock)[] = message.content;
    const blocks = original
      .filter((block) => block.type !== "text" || block.text.trim() !== "")
      .map((block) => {
        if (block.type !== "tool_result" || !block.is_error || resultText(block.content).trim())
          return block;
        repairs.push(`Gave the empty error result for tool call ${block.tool_use_id} a text.`);
        return { ...block, content: EMPTY_ERROR };
      });
    const dropped = original.length - blocks.length;
    if (dropped > 0) {
      const what = plural(dropped, "an empty text block", `${dropped} empty text blocks`);
      const from = message.role === "user" ? "a user" : "an assistant";
      repairs.push(`Dropped ${what} from ${from} message.`);
    }
    const changed = dropped > 0 || blocks.some((block, i) => block !== original[i]);
    if (blocks.length === 0) repairs.push(`Dropped an empty ${message.role} message.`);
    else kept.push(changed ? ({ role: message.role, content: blocks } as Message) : message);
  }
  return kept;
}

function dropLeadingAssistants(messages: Message[], repairs: string[]): Message[] {
  const start = messages.findIndex((message) => message.role === "user");
  const dropped = start === -1 ? messages.length : start;
  if (dropped === 0) return messages;
  const what = plural(dropped, "an assistant message", `${dropped} assistant messages`);
  repairs.push(
    `Dropped ${what} before the first user message, since a conversation must start with the user.`,
  );
  return messages.slice(dropped);
}

/**
 * Joins consecutive messages of one role, as the API itself does. The loop produces them on
 * purpose (a pause_turn continuation, a prompt typed after an interrupt), so this is the wire
 * form of a valid history, not a repair, and is not reported.
 */
function mergeSameRole(messages: Message[]): Message[] {
  const merged: Message[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (previous?.role !== message.role) {
      merged.push(message);
      continue;
    }
    if (previous.role === "assistant") {
      const content = [...previous.content, ...(message as AssistantMessage).content];
      merged[merged.length - 1] = { role: "assistant", content };
    } else {
      // A prompt typed after interrupted tool results lands here: results must come first.
      const blocks = [...userBlocks(previous), ...userBlocks(message as UserMessage)];
      const results = blocks.filter((block) => block.type === "tool_result");
      const others = blocks.filter((block) => block.type !== "tool_result");
      merged[merged.length - 1] = { role: "user", content: [...results, ...others] };
    }
  }
  return merged;
}

/** Gives a repeated tool_use id a fresh one, and moves the matching results along with it. */
function renameRepeatedIds(messages: Message[], repairs: string[]): Message[] {
  const allIds = new Set(messages.flatMap((message) => toolUsesIn(message).map((use) => use.id)));
  const seen = new Set<string>();
  const result = [...messages];
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || toolUsesIn(message).length === 0) continue;
    // For each id as the model wrote it, the ids its calls carry now, in order.
    const renamed = new Map<string, string[]>();
    let changed = false;
    const content = message.content.map((block) => {
      if (block.type !== "tool_use") return block;
      let id = block.id;
      if (seen.has(id)) {
        id = freshId(block.id, allIds);
        repairs.push(`Renamed the repeated tool call id ${block.id} to ${id}.`);
        changed = true;
      }
      seen.add(id);
      renamed.set(block.id, [...(renamed.get(block.id) ?? []), id]);
      return id === block.id ? block : { ...block, id };
    });
    if (!changed) continue;
    result[index] = { role: "assistant", content };
    const next = messages[index + 1];
    if (next?.role !== "user") continue;
    const answers = userBlocks(next).map((block) => {
      if (block.type !== "tool_result") return block;
      const id = renamed.get(block.tool_use_id)?.shift();
      return id === undefined || id === block.tool_use_id ? block : { ...block, tool_use_id: id };
    });
    result[index + 1] = { role: "user", content: answers };
  }
  return result;
}

/**
 * Drops tool calls without a name, and their results: no tool answers them and servers reject
 * them (`function.name: empty string`). Sessions recorded before replies were repaired on
 * arrival (see repairReply) can hold them. Runs after renameRepeatedIds, so ids are unique.
 */
function dropNamelessCalls(messages: Message[], repairs: string[]): Message[] {
  const result = [...messages];
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    const nameless = new Set(
      toolUsesIn(message)
        .filter((use) => !hasName(use))
        .map((use) => use.id),
    );
    if (nameless.size === 0) continue;
    result[index] = {
      role: "assistant",
      content: message.content.filter((block) => block.type !== "tool_use" || hasName(block)),
    };
    const next = messages[index + 1];
    const answered = new Set<string>();
    if (next?.role === "user") {
      const content = userBlocks(next).filter((block) => {
        const drop = block.type === "tool_result" && nameless.has(block.tool_use_id);
        if (drop) answered.add(block.tool_use_id);
        return !drop;
      });
      if (answered.size > 0) result[index + 1] = { role: "user", content };
    }
    for (const id of nameless) {
      const also = answered.has(id) ? ", and its result" : "";
      repairs.push(`Dropped tool call ${id}, which has no name${also}.`);
    }
  }
  return result;
}

/** A reply just received, fit to run and to record, and what had to change. */
export interface RepairedReply {
  message: AssistantMessage;
  /** One sentence per repair, as prepareForRequest gives them. Empty when nothing changed. */
  repairs: string[];
}

/**
 * Makes a new reply safe to run and to record before anything uses it: a tool call without a
 * name is dropped (no tool answers it, and no server takes it back), and a call whose id an
 * earlier call in `history` or in the reply already has gets a fresh id. The loop then runs,
 * answers and records each call under an id of its own, so its result can never be mistaken
 * for another's, in this request or on resume.
 */
export function repairReply(history: readonly Message[], reply: AssistantMessage): RepairedReply {
  const calls = toolUsesIn(reply);
  if (calls.length === 0) return { message: reply, repairs: [] };
  const repairs: string[] = [];
  // The history's ids: known already when the request's check found it valid, so a reply does
  // not cost a walk over the whole session. The reply's own ids are kept apart.
  const earlier =
    knownCallIds(history) ??
    new Set(history.flatMap((message) => toolUsesIn(message).map((use) => use.id)));
  const inReply = new Set<string>();
  const isSeen = (id: string) => earlier.has(id) || inReply.has(id);
  let taken: Set<string> | undefined;
  let changed = false;
  const content: AssistantBlock[] = [];
  for (const block of reply.content) {
    if (block.type !== "tool_use") {
      content.push(block);
      continue;
    }
    changed ||= !hasName(block) || isSeen(block.id);
    if (!hasName(block)) {
      const args = JSON.stringify(block.input) ?? "";
      const shown = args.length > 200 ? `${args.slice(0, 200)}…` : args;
      repairs.push(
        `Dropped tool call ${block.id} from the model's reply: it has no name (its input was ${shown}).`,
      );
      continue;
    }
    if (!isSeen(block.id)) {
      inReply.add(block.id);
      content.push(block);
      continue;
    }
    taken ??= new Set([...earlier, ...calls.map((use) => use.id)]);
    const id = freshId(block.id, taken);
    repairs.push(`Renamed the repeated tool call id ${block.id} in the model's reply to ${id}.`);
    inReply.add(id);
    content.push({ ...block, id });
  }
  // Everything else about the reply (the model that wrote it) stays as it came.
  return { message: changed ? { ...reply, content } : reply, repairs };
}

/**
 * Makes the user message after each assistant message hold exactly one result per tool call,
 * first and in call order: missing results become error results, unmatched ones are dropped.
 */
function pairToolCalls(messages: Message[], repairs: string[]): Message[] {
  const result: Message[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      result.push(message);
      const calls = toolUsesIn(message);
      const next = messages[index + 1];
      if (calls.length > 0 && next === undefined) {
        result.push({ role: "user", content: answer(calls, [], repairs) });
      }
      continue;
    }
    const previous = messages[index - 1];
    const calls = previous ? toolUsesIn(previous) : [];
    const blocks = userBlocks(message);
    if (calls.length === 0 && !blocks.some((block) => block.type === "tool_result")) {
      result.push(message);
      continue;
    }
    const before = repairs.length;
    const others = blocks.filter((block) => block.type !== "tool_result");
    const content = [...answer(calls, blocks, repairs), ...others];
    if (repairs.length === before && content.every((block, i) => block === blocks[i])) {
      result.push(message);
      continue;
    }
    if (repairs.length === before) {
      repairs.push("Put the tool results first, in the order of their calls.");
    }
    result.push({ role: "user", content });
  }
  return result;
}

/** One result per call, taken from `blocks` when there is one; reports what it drops or adds. */
function answer(calls: ToolUseBlock[], blocks: UserBlock[], repairs: string[]): ToolResultBlock[] {
  const available = blocks.filter((block) => block.type === "tool_result");
  const answered = calls.map((call): ToolResultBlock => {
    const found = available.findIndex((result) => result.tool_use_id === call.id);
    if (found !== -1) return available.splice(found, 1)[0] as ToolResultBlock;
    repairs.push(
      `Answered tool call ${call.id} (${call.name}), which had no result, with an error.`,
    );
    return { type: "tool_result", tool_use_id: call.id, content: MISSING_RESULT, is_error: true };
  });
  const callIds = new Set(calls.map((call) => call.id));
  for (const orphan of available) {
    repairs.push(
      callIds.has(orphan.tool_use_id)
        ? `Dropped a second result for tool call ${orphan.tool_use_id}.`
        : `Dropped a result for tool call ${orphan.tool_use_id}, which the message before it does not make.`,
    );
  }
  return answered;
}

/** The API rejects a final assistant message (a pause_turn continuation) ending in whitespace. */
function trimFinalAssistant(messages: Message[], repairs: string[]): Message[] {
  const last = messages.at(-1);
  const block = last?.role === "assistant" ? last.content.at(-1) : undefined;
  if (last?.role !== "assistant" || block?.type !== "text" || block.text === block.text.trimEnd()) {
    return messages;
  }
  repairs.push("Removed trailing whitespace from the final assistant message.");
  const content = [...last.content.slice(0, -1), { ...block, text: block.text.trimEnd() }];
  return [...messages.slice(0, -1), { role: "assistant", content }];
}

function userBlocks(message: UserMessage): UserBlock[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : message.content;
}

function toolUsesIn(message: Message): ToolUseBlock[] {
  if (message.role !== "assistant") return [];
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

function freshId(id: string, taken: Set<string>): string {
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${id}_${suffix}`;
    if (!taken.has(candidate)) {
      taken.add(candidate);
      return candidate;
    }
  }
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}
