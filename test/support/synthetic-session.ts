// A long, realistic-looking session file: one prompt, then turns of an assistant reply with a
// bash call and the call's result, some of them failures and some long, ending with a stop.

import { SESSION_FORMAT_VERSION } from "../../src/session/session-file.js";

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

export const CLEAR_STUB =
  "[agentloop cleared this result to save context: npm run build, exit 1, 40 lines; saved in /tmp/agentloop/t1.txt]";
export const SUMMARY_INSTRUCTIONS =
  "[agentloop] The conversation has grown too long for your context window. Write a summary.";
export const SUMMARY =
  "1. Task: make the build pass.\n2. Errors: src/a.ts had a type error, fixed.";

/**
 * A short session with both kinds of compaction: after two tool turns the loop clears the
 * first result (auto), a third turn follows, then the API refuses request 5 as too long and
 * the loop summarises the first five messages and retries with the summary and the third turn.
 * Requests: 1-3 the tool turns, 4 the summary request, 5 the retried turn 5 that ends it.
 */
export function compactedSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 10, 28, 11) + n * 1_000).toISOString();
  const usage = (input: number) => ({
    input_tokens: input,
    output_tokens: 50,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  const call = (turn: number, id: string, command: string) => ({
    type: "message",
    at: at(turn * 10),
    turn,
    stopReason: "tool_use",
    usage: usage(1_000 * turn),
    durationMs: 900,
    message: {
      role: "assistant",
      content: [
        { type: "text", text: `Turn ${turn}: ${command}` },
        { type: "tool_use", id, name: "bash", input: { command } },
      ],
    },
  });
  const result = (turn: number, id: string, content: string, isError = false) => ({
    type: "message",
    at: at(turn * 10 + 1),
    turn,
    message: {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: id, content, ...(isError ? { is_error: true } : {}) },
      ],
    },
  });
  const turnEnd = (turn: number, transitionReason: string) => ({
    type: "turn_end",
    at: at(turn * 10 + 2),
    turn,
    transitionReason,
  });
  const buildLog = Array.from({ length: 38 }, (_, line) => `src/a.ts(${line + 1},1): error`);
  const third = [
    call(3, "toolu_3", "npm test"),
    result(3, "toolu_3", "3 passing\n[exit code 0]"),
  ] as const;
  const lines: object[] = [
    {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: "compacted",
      cwd: "/home/ada/projects/small",
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      startedAt: at(0),
    },
    { type: "message", at: at(1), message: { role: "user", content: "Make the build pass." } },
    call(1, "toolu_1", "npm run build"),
    result(1, "toolu_1", `${buildLog.join("\n")}\n[exit code 1]`, true),
    turnEnd(1, "tool_result"),
    call(2, "toolu_2", "cat src/a.ts"),
    result(2, "toolu_2", "export const a: number = 1;\n[exit code 0]"),
    turnEnd(2, "tool_result"),
    {
      type: "compaction",
      at: at(25),
      trigger: "auto",
      tokensBefore: 182_000,
      tokensAfter: 41_000,
      contextWindow: 200_000,
      kind: "clear",
      cleared: [{ tool_use_id: "toolu_1", stub: CLEAR_STUB }],
    },
    ...third,
    turnEnd(3, "tool_result"),
    {
      type: "compaction",
      at: at(45),
      trigger: "too_long",
      tokensBefore: 170_000,
      tokensAfter: 12_000,
      contextWindow: 200_000,
      kind: "summary",
      instructions: SUMMARY_INSTRUCTIONS,
      summarizedCount: 5,
      summary: SUMMARY,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Make the build pass." },
            {
              type: "text",
              text: `[agentloop] Earlier turns were replaced by this summary.\n\n${SUMMARY}`,
            },
          ],
        },
        third[0].message,
        third[1].message,
      ],
      usage: usage(9_000),
      durationMs: 5_400,
    },
    turnEnd(4, "compact_retry"),
    {
      type: "message",
      at: at(50),
      turn: 5,
      stopReason: "end_turn",
      usage: usage(12_000),
      durationMs: 700,
      message: { role: "assistant", content: [{ type: "text", text: "The build passes now." }] },
    },
    { type: "stop", at: at(51), reason: "end_turn", detail: "The model finished its answer." },
  ];
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

/** Text a model might put in a file: it must show as text, never run. */
export const INJECTED_MARKUP =
  '<script>window.injected = true</script><img src=x onerror="window.injected = true">';
export const WRITTEN_LINES = Array.from({ length: 40 }, (_, line) => `  "key${line}": ${line},`);

/**
 * A session with the file tools of s02: a read with a line range and one without, an edit with
 * two replacements (the first with \r\n line endings, the second holding markup and replacing
 * every occurrence) and its diff, a long write, and an edit whose input is malformed.
 */
export function fileToolsSession(): string {
  const at = (n: number) => new Date(Date.UTC(2026, 10, 28, 12) + n * 1_000).toISOString();
  const reply = (turn: number, content: object[], stopReason = "tool_use") => ({
    type: "message",
    at: at(turn * 10),
    turn,
    stopReason,
    usage: {
      input_tokens: 1_000,
      output_tokens: 50,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    durationMs: 800,
    message: { role: "assistant", content },
  });
  const results = (turn: number, content: object[]) => ({
    type: "message",
    at: at(turn * 10 + 1),
    turn,
    message: { role: "user", content },
  });
  const result = (id: string, content: string, isError = false) => ({
    type: "tool_result",
    tool_use_id: id,
    content,
    ...(isError ? { is_error: true } : {}),
  });
  const use = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });
  const turnEnd = (turn: number) => ({
    type: "turn_end",
    at: at(turn * 10 + 2),
    turn,
    transitionReason: "tool_result",
  });
  const editDiff = [
    "Edited src/app.ts: 2 replacements, +4 -3 lines.",
    "--- src/app.ts",
    "+++ src/app.ts",
    "@@ -10,4 +10,5 @@",
    " // greeting",
    "-export function greet(name) {",
    "-  return 'hi ' + name;",
    "+export function welcome(name) {",
    "+  // says hello",
    "+  return 'welcome ' + name;",
    " }",
    "@@ -30,1 +31,1 @@",
    `-${INJECTED_MARKUP}`,
    "+<p>safe</p>",
    "\\ No newline at end of file",
  ].join("\n");
  const lines: object[] = [
    {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: "file-tools",
      cwd: "/home/ada/projects/greeter",
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      startedAt: at(0),
    },
    {
      type: "message",
      at: at(1),
      message: { role: "user", content: "Rename greet to welcome and add a settings file." },
    },
    reply(1, [
      { type: "text", text: "Reading the code first." },
      use("toolu_read1", "read", { file_path: "src/app.ts", offset: 10, limit: 50 }),
      use("toolu_read2", "read", { file_path: "README.md" }),
    ]),
    results(1, [
      result("toolu_read1", "    10\t// greeting\n    11\texport function greet(name) {"),
      result("toolu_read2", "     1\t# greeter"),
    ]),
    turnEnd(1),
    reply(2, [
      use("toolu_edit1", "edit", {
        file_path: "src/app.ts",
        old_string: "export function greet(name) {\r\n  return 'hi ' + name;",
        new_string:
          "export function welcome(name) {\r\n  // says hello\r\n  return 'welcome ' + name;",
        edits: [{ old_string: INJECTED_MARKUP, new_string: "<p>safe</p>", replace_all: true }],
      }),
    ]),
    results(2, [result("toolu_edit1", editDiff)]),
    turnEnd(2),
    reply(3, [
      use("toolu_write1", "write", {
        file_path: "config/settings.json",
        content: `{\n${WRITTEN_LINES.join("\n")}\n}\n`,
      }),
      use("toolu_edit2", "edit", { file_path: "src/app.ts", old_string: 42, new_string: null }),
    ]),
    results(3, [
      result("toolu_write1", "Created config/settings.json (42 lines)."),
      result("toolu_edit2", "old_string must be a string.", true),
    ]),
    turnEnd(3),
    reply(4, [{ type: "text", text: "Done." }], "end_turn"),
    { type: "stop", at: at(41), reason: "end_turn", detail: "The model finished its answer." },
  ];
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}
