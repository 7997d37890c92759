// What the judge reads of the conversation: the recent messages as plain text, newest kept
// first within a budget, tool calls and results written out as lines (the judge has no tools,
// so it gets none of their blocks). Reasoning is left out: the judge weighs what was shown.

import { type Message, resultText } from "../core/messages.js";

/** The most characters of conversation one check sends (about 8,000 tokens). */
export const MATERIAL_BUDGET_CHARS = 32_000;
/** The most characters one block keeps, its start and its end. */
const BLOCK_CHARS = 4_000;

/** The conversation's last messages as text, oldest first, within `budget` characters. */
export function judgeMaterial(
  messages: readonly Message[],
  budget = MATERIAL_BUDGET_CHARS,
): string {
  const kept: string[] = [];
  let used = 0;
  let index = messages.length - 1;
  for (; index >= 0; index--) {
    const text = linesOf(messages[index] as Message).join("\n");
    if (text === "") continue;
    if (used + text.length > budget && kept.length > 0) break;
    kept.unshift(clip(text, budget));
    used += text.length;
  }
  if (index >= 0) kept.unshift(`[${index + 1} earlier messages left out]`);
  return kept.join("\n\n");
}

function linesOf(message: Message): string[] {
  const who = message.role === "user" ? "[user]" : "[assistant]";
  if (typeof message.content === "string") return [`${who} ${clip(message.content)}`];
  return message.content.flatMap((block) => {
    switch (block.type) {
      case "text":
        return [`${who} ${clip(block.text)}`];
      case "tool_use":
        return [`[tool call ${block.name}] ${clip(JSON.stringify(block.input))}`];
      case "tool_result": {
        const label = block.is_error ? "[tool result, an error]" : "[tool result]";
        return [`${label} ${clip(resultText(block.content))}`];
      }
      default:
        return [];
    }
  });
}

/** The start and the end of a long text, with what was cut said between them. */
function clip(text: string, limit = BLOCK_CHARS): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters left out …]\n${text.slice(-half)}`;
}
