// The second layer of compaction: when clearing old results is not enough, the model writes a
// structured summary of the older turns, and the history starts over from the first prompt,
// that summary, and the most recent turns kept whole.

import type { Message, TextBlock, UserMessage } from "../core/messages.js";

const SUMMARY_REQUEST = `[agentloop] The conversation has grown too long for your context window, so its older part will be replaced by a summary that you write now. Do not call any tool. Write the summary in these sections, keeping every detail needed to carry on without the original messages:
1. Task: what the user asked for, quoting their words.
2. Decisions: what was decided and why.
3. Files: every file created, changed or deleted, and how.
4. Commands: the commands that mattered and what they showed.
5. Errors: the errors met and whether they were resolved.
6. Remaining: what is left to do, and the very next step.`;

const SUMMARY_HEADING =
  "[agentloop] Earlier turns of this session were replaced by this summary of them, which you wrote. The latest turns follow unchanged.";

export function summaryInstructions(focus: string | undefined): string {
  return focus ? `${SUMMARY_REQUEST}\nGive most room to: ${focus}` : SUMMARY_REQUEST;
}

/** The first prompt, verbatim, also when the history already starts with a summary. */
export function firstPromptOf(messages: readonly Message[]): string {
  const first = messages.find((message) => message.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  const texts = first.content.filter((block): block is TextBlock => block.type === "text");
  return texts[0]?.text ?? "";
}

/**
 * Where the kept recent turns start: the earliest point after the first message from which
 * the rest fits in `keepTokens`, and where no tool result is parted from its call (an
 * assistant message, or a user message without results). The last such point when none fits.
 * Null when there is nothing before it to summarise.
 */
export function keptTurnsStart(
  messages: readonly Message[],
  keepTokens: number,
  tokensOf: (message: Message) => number,
): number | null {
  let tail = 0;
  let start: number | null = null;
  for (let index = messages.length - 1; index >= 2; index -= 1) {
    const message = messages[index] as Message;
    tail += tokensOf(message);
    if (!canStartAt(message)) continue;
    if (tail > keepTokens && start !== null) break;
    start = index;
  }
  return start;
}

function canStartAt(message: Message): boolean {
  if (message.role === "assistant") return true;
  return typeof message.content === "string" || message.content.every((b) => b.type === "text");
}

/**
 * The history after a summary: first prompt, summary and any `restated` state (the todo list)
 * in one user message, then the kept turns.
 */
export function historyAfterSummary(
  firstPrompt: string,
  summary: string,
  kept: readonly Message[],
  restated: string | null = null,
): Message[] {
  const head: UserMessage = {
    role: "user",
    content: [
      { type: "text", text: firstPrompt || "(no prompt)" },
      { type: "text", text: `${SUMMARY_HEADING}\n\n${summary}` },
      ...(restated ? [{ type: "text" as const, text: restated }] : []),
    ],
  };
  return [head, ...kept];
}
