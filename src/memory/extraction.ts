// The extraction step (s09): at the end of a session and before a compaction, one request over
// the session's history proposes what a later session should know (the person's preferences,
// facts about the project, corrections), one line each, in a format parsed line by line.

import { type Message, resultText } from "../core/messages.js";
import { redactSecretShapes, secretKinds } from "../permissions/secret-shapes.js";
import { describeEntry, type MemoryEntry, oneLine, topicName } from "./entry.js";

/** The first words of the request: the fake model in the tests answers it by them. */
export const EXTRACTION_MARK = "[agentloop memory extraction]";

/** The session as text sent for extraction, newest kept when it is longer (about 20k tokens). */
const TRANSCRIPT_CHARACTERS = 80_000;
/** What of one tool call or result is shown: the extraction wants the person's words most. */
const TOOL_CHARACTERS = 600;

export const EXTRACTION_SYSTEM =
  "You pick out, from a coding session, what is worth remembering in later sessions of the same project. You answer only in the format asked for.";

export interface Proposal {
  topic: string;
  text: string;
}

/** The request's text: the format, what is remembered already, and the session. */
export function extractionRequest(
  messages: readonly Message[],
  remembered: readonly MemoryEntry[],
): string {
  const known = remembered.map((entry) => `- ${describeEntry(entry)}`).join("\n") || "(nothing)";
  return `${EXTRACTION_MARK} Read the coding session below and propose what a later session in this project should remember: the user's preferences (tools, style, how they like to work), facts about the project (commands, layout, conventions), and corrections the user made. Leave out what only this session's task needed, anything already remembered, and secrets (keys, tokens, passwords). Answer with one line per entry, exactly:
REMEMBER <topic>: <the entry, one sentence>
where <topic> is lowercase words joined by hyphens (preferences, project, corrections, ...). If nothing is worth remembering, answer NOTHING.

<remembered>
${known}
</remembered>

<session>
${transcript(messages)}
</session>`;
}

/**
 * The proposals of an answer: its REMEMBER lines with a usable topic and text. One that holds
 * something shaped like a secret is left out: it would be stored, and resent in every later
 * session's system prompt.
 */
export function parseProposals(answer: string): Proposal[] {
  const proposals: Proposal[] = [];
  for (const line of answer.split("\n")) {
    const match = /^\s*[-*]?\s*REMEMBER\s+([^:]+):\s*(.+)$/i.exec(line);
    const topic = match && topicName(match[1] as string);
    const text = match && oneLine(match[2] as string);
    if (topic && text && secretKinds(text).length === 0) proposals.push({ topic, text });
  }
  return proposals;
}

/** The history as plain text: what was said in full, tool calls and results cut short. */
function transcript(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") {
      parts.push(`${speaker(message)}: ${message.content}`);
      continue;
    }
    for (const block of message.content) {
      if (block.type === "text") parts.push(`${speaker(message)}: ${block.text}`);
      else if (block.type === "tool_use") {
        parts.push(`Assistant called ${block.name}: ${cut(JSON.stringify(block.input))}`);
      } else if (block.type === "tool_result") {
        parts.push(`Result: ${cut(resultText(block.content))}`);
      }
    }
  }
  // The model has no use for a secret here, and none to echo back as a proposal.
  const text = redactSecretShapes(parts.join("\n\n"));
  if (text.length <= TRANSCRIPT_CHARACTERS) return text;
  return `(the start of the session is left out)\n${text.slice(-TRANSCRIPT_CHARACTERS)}`;
}

function speaker(message: Message): string {
  return message.role === "user" ? "User" : "Assistant";
}

function cut(text: string): string {
  return text.length > TOOL_CHARACTERS ? `${text.slice(0, TOOL_CHARACTERS)}…` : text;
}
