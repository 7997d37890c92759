// Shows loop events to a person at a terminal: the answer as it streams (its Markdown rendered
// when colour is on), each tool call as it starts, a short preview of its result, retries and
// why the loop stopped. Prose is wrapped to the terminal's width between words; a call, a diff
// and a command's output are code, left whole (src/terminal/wrap.ts).

import { describeTask } from "../background/task-line.js";
import type { CompactionEvent, HookRunEvent, LoopEvent } from "../core/events.js";
import { resultText, type ToolUseBlock } from "../core/messages.js";
import { count, plural } from "../core/wording.js";
import type { MarkdownStream } from "./markdown.js";
import { todoLines } from "./todo-lines.js";
import { beside, columnsOf, type Screen } from "./wrap.js";

export interface Output extends Screen {
  write(text: string): unknown;
}

export interface RendererOptions {
  /** Where the answer's text goes. */
  answer: Output;
  /** Where tool calls, retries and notices go. */
  progress: Output;
  color: boolean;
  /** Whether streamed text is shown as it arrives (otherwise only tool activity is shown). */
  streamText: boolean;
  /** Columns to wrap rendered Markdown at; the terminal's width when left out. */
  width?: number;
  /**
   * Whether the person was shown, in a permission question, what the calls now ending change:
   * their results then show the diff's summary line without the diff.
   */
  changeShown?: () => boolean;
}

type MarkdownModule = typeof import("./markdown.js");
let markdownModule: MarkdownModule | undefined;
let markdownLoading: Promise<void> | undefined;

/**
 * Loads the Markdown renderer (marked, lowlight and the grammars: 40-100 ms to load), which only
 * a terminal needs, so piped runs never pay for it. Until it is loaded, answers are shown as
 * plain text; if it cannot load, they stay plain.
 */
export function loadMarkdownRenderer(): Promise<void> {
  markdownLoading ??= import("./markdown.js").then(
    (loaded) => {
      markdownModule = loaded;
    },
    () => undefined,
  );
  return markdownLoading;
}

const PREVIEW_LINES = 4;
const PREVIEW_WIDTH = 160;

export function createRenderer(options: RendererOptions): (event: LoopEvent) => void {
  const paint = (code: string, text: string) =>
    options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  const dim = (text: string) => paint("2", text);
  /** A line of prose: `text` beside its label (a marker), wrapped to the progress output's width. */
  const say = (label: string, text: string) =>
    options.progress.write(`${beside(label, text, columnsOf(options.progress))}\n`);
  const renderMarkdown = options.color && options.streamText;
  if (renderMarkdown) void loadMarkdownRenderer();
  // The answer being shown: through the Markdown renderer, or as it comes ("plain").
  let answer: MarkdownStream | "plain" | undefined;
  let midLine = false;
  const endLine = () => {
    if (answer && answer !== "plain") answer.end();
    else if (midLine) options.answer.write("\n");
    answer = undefined;
    midLine = false;
  };

  // Only a file tool's question shows a diff; a command's output can hold one of its own.
  const changeWasShown = (call: ToolUseBlock) =>
    typeof (call.input as Record<string, unknown> | null)?.file_path === "string" &&
    options.changeShown?.() === true;

  return (event) => {
    switch (event.type) {
      case "text_delta":
        if (!options.streamText) return;
        answer ??=
          renderMarkdown && markdownModule
            ? markdownModule.createMarkdownStream((text) => options.answer.write(text), {
                width: options.width ?? (process.stdout.columns || 80),
                color: true,
              })
            : "plain";
        if (answer !== "plain") return answer.push(event.text);
        options.answer.write(event.text);
        midLine = !event.text.endsWith("\n");
        return;
      case "assistant_message":
        endLine();
        return;
      case "tool_start":
        options.progress.write(`${paint("36", "⏺")} ${describeCall(event.call)}\n`);
        return;
      case "tool_end": {
        // The list it set is shown in its place, by the todos event that follows.
        if (event.call.name === "todo_write" && !event.result.is_error) return;
        const marker = event.result.is_error ? paint("31", "  ⎿ ") : dim("  ⎿ ");
        const text = resultText(event.result.content);
        const diff = event.result.is_error ? null : diffLines(text);
        if (diff) {
          const [summary = ""] = text.split("\n");
          const colored = diff.map((line) => paint(DIFF_COLORS[line[0] ?? " "] ?? "2", line));
          const hunks = changeWasShown(event.call) ? "" : `\n    ${colored.join("\n    ")}`;
          options.progress.write(`${marker}${dim(summary)}${hunks}\n`);
        } else options.progress.write(`${marker}${dim(preview(text))}\n`);
        return;
      }
      case "todos":
        todoLines(event.todos, paint).forEach((line, index) => {
          say(index === 0 ? dim("  ⎿ ") : "    ", line);
        });
        return;
      case "subagent": {
        // A child's own calls, indented under the agent call while it runs: one line each.
        const child = event.event;
        if (child.type === "tool_start") {
          options.progress.write(`    ${paint("36", "⏺")} ${describeCall(child.call)}\n`);
        } else if (child.type === "tool_end") {
          const marker = child.result.is_error ? paint("31", "      ⎿ ") : dim("      ⎿ ");
          const [first = ""] = resultText(child.result.content).split("\n");
          options.progress.write(`${marker}${dim(clip(first, PREVIEW_WIDTH))}\n`);
        }
        return;
      }
      case "retry":
        endLine();
        say(
          paint("33", "↻ "),
          paint(
            "33",
            `${event.reason}; retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt})`,
          ),
        );
        return;
      case "compaction":
        endLine();
        say(dim("⟳ "), dim(describeCompaction(event)));
        return;
      case "part":
        endLine();
        options.progress.write(dim(`◆ ${event.line}\n`));
        return;
      // The model is told now; a person sees the same line.
      case "task_notification":
        endLine();
        say(dim("◆ "), dim(`background task ${describeTask(event.task)}`));
        return;
      case "hook": {
        const line = describeHookRun(event);
        if (!line) return;
        endLine();
        say("", paint(event.decision === "error" ? "33" : "31", line));
        return;
      }
      case "stop":
        endLine();
        if (event.reason === "error") say("", paint("31", `agentloop: ${event.detail}`));
        else if (event.reason !== "end_turn") say(paint("33", "■ "), paint("33", event.detail));
        return;
      // Thinking is shown by the progress line, dim and short, and is never part of the answer.
      case "thinking_delta":
      case "turn_start":
      case "tool_results":
      case "continuation":
      case "turn_end":
      // The tool's result says it started or stopped it.
      case "task_started":
      case "task_stopped":
        return;
    }
  };
}

export function describeCall(call: ToolUseBlock): string {
  const input = call.input as Record<string, unknown> | null;
  const shown =
    call.name === "bash" && typeof input?.command === "string"
      ? `${input.run_in_background === true ? "(background) " : ""}$ ${input.command}`
      : call.name === "agent" && typeof input?.description === "string"
        ? `${typeof input.subagent_type === "string" ? input.subagent_type : "general"}: ${input.description}`
        : call.name === "todo_write" && Array.isArray(input?.todos)
          ? plural(input.todos.length, "item")
          : typeof input?.file_path === "string"
            ? input.file_path
            : JSON.stringify(call.input);
  return `${call.name} ${clip(shown.replace(/\s*\n\s*/g, " ⏎ "), PREVIEW_WIDTH)}`;
}

/**
 * A line for a hook's run that a person must see: one that blocked, or one that failed (a
 * failure that lets the step go on is never silent). Null for a run that only let it go on.
 */
export function describeHookRun(event: HookRunEvent): string | null {
  const hook = `${event.event} hook (${clip(event.command, 80)})`;
  if (event.decision === "error") return `⚠ ${hook} failed, and was passed over: ${event.reason}`;
  if (event.decision === "block") return `✋ ${hook} blocked: ${event.reason}`;
  return null;
}

/** One line: what was compacted, and the size before and after against the window. */
export function describeCompaction(event: CompactionEvent): string {
  const what =
    event.kind === "clear"
      ? `cleared ${plural(event.cleared.length, "old tool result")}`
      : `summarised ${event.summarizedCount} messages`;
  const why = { auto: "", too_long: " after the API said the request was too long", manual: "" }[
    event.trigger
  ];
  return `compacted${why}: ${what}, ${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens (window ${count(event.contextWindow)})`;
}

const DIFF_COLORS: Record<string, string> = { "+": "32", "-": "31", "@": "36" };
const DIFF_LINES = 24;

/** The hunks of a unified diff in a tool's result (an edit's), or null when it has none. */
function diffLines(content: string): string[] | null {
  const lines = content.split("\n");
  const start = lines.findIndex((line) => line.startsWith("@@"));
  if (start === -1) return null;
  const hunks = lines.slice(start).map((line) => clip(line, PREVIEW_WIDTH));
  if (hunks.length <= DIFF_LINES) return hunks;
  return [...hunks.slice(0, DIFF_LINES), `… ${hunks.length - DIFF_LINES} more lines`];
}

function preview(content: string): string {
  const lines = content.split("\n");
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => clip(line, PREVIEW_WIDTH));
  const more = lines.length - shown.length;
  if (more > 0) shown.push(`… ${more} more line${more === 1 ? "" : "s"}`);
  return shown.join("\n    ");
}

function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}
