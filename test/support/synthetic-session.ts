// A long, realistic-looking session file: one prompt, then turns of an assistant reply with a
// bash call and the call's result, some of them failures and some long, ending with a stop.

import { SESSION_FORMAT_VERSION } from "../../src/session.js";

export function syntheticSession(messageCount: number, cwd = "/home/ada/projects/big"): string {
  const lines: object[] = [
    {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: `synthetic-${messageCount}`,
      cwd,
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      startedAt: "2026-11-28T10:00:00.000Z",
    },
  ];
  const at = (n: number) => new Date(Date.UTC(2026, 10, 28, 10) + n * 1_000).toISOString();
  lines.push({
    type: "message",
    at: at(0),
    message: { role: "user", content: "Fix every failing test." },
  });
  let messages = 1;
  let turn = 1;
  while (messages < messageCount) {
    const id = `toolu_${turn.toString().padStart(6, "0")}`;
    const last = messages + 1 >= messageCount;
    const content = last
      ? [{ type: "text", text: `All tests pass after ${turn} turns.` }]
      : [
          { type: "text", text: `Turn ${turn}: running the next check.` },
          {
            type: "tool_use",
            id,
            name: "bash",
            input: { command: `npm test -- --grep case-${turn}` },
          },
        ];
    lines.push({
      type: "message",
      at: at(messages),
      turn,
      stopReason: last ? "end_turn" : "tool_use",
      usage: {
        input_tokens: 1_000 + turn * 40,
        output_tokens: 60,
        cache_read_input_tokens: turn * 38,
        cache_creation_input_tokens: 0,
      },
      durationMs: 800 + (turn % 7) * 150,
      message: { role: "assistant", content },
    });
    messages += 1;
    if (last) break;
    const failed = turn % 5 === 0;
    const output =
      turn % 9 === 0
        ? Array.from({ length: 80 }, (_, line) => `  ok ${line} case-${turn} step ${line}`).join(
            "\n",
          )
        : `case-${turn}: ${failed ? "1 failing" : "passing"}`;
    lines.push({
      type: "message",
      at: at(messages),
      turn,
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: id,
            content: `${output}\n[exit code ${failed ? 1 : 0}]`,
            ...(failed ? { is_error: true } : {}),
          },
        ],
      },
    });
    messages += 1;
    lines.push({ type: "turn_end", at: at(messages), turn, transitionReason: "tool_result" });
    turn += 1;
  }
  lines.push({
    type: "stop",
    at: at(messages),
    reason: "end_turn",
    detail: "The model finished its answer.",
  });
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}
