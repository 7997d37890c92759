// The left panel: the conversation as a person reads it. Prompts and answers are bubbles, each
// tool call shows its command (a file tool's call its file and change, see file-tools.ts), each
// result its exit code; failures are red. Tool calls and
// results carry their id so hovering one lights up the other. A compaction is a boundary line:
// the results before it keep their full text here, though later requests sent stubs or a summary.
// An agent call's result holds the child's run, folded: opened, its messages one by one.

import {
  type ImageBlock,
  type Message,
  resultImages,
  resultText,
  type ToolResultBlock,
  type ToolResultPart,
  type ToolUseBlock,
} from "../../core/messages.js";
import { isKnownBlock } from "../known-block.js";
import type { SubagentRun } from "../subagent-runs.js";
import type { ConversationItem } from "../timeline.js";
import { compactionReason, describeCompaction } from "./compaction.js";
import { element, lazyDetails } from "./dom.js";
import { renderDiffResult, renderFileToolCall } from "./file-tools.js";
import { foldedText } from "./fold.js";
import { resultEnding } from "./result-ending.js";

type Runs = Record<string, SubagentRun>;

export function renderConversationItem(
  item: ConversationItem,
  messages: Message[],
  subagents: Runs,
): HTMLElement {
  switch (item.kind) {
    case "message": {
      const message = messages[item.index];
      if (!message) throw new Error(`the timeline names message ${item.index}, which is missing`);
      return renderMessage(message, item.label, subagents);
    }
    case "compaction":
      return element("div", { className: `item compaction ${item.method}` }, [
        element("div", { className: "rule" }, [
          `— ${item.method === "clear" ? "compacted: " : ""}${describeCompaction(item)} —`,
        ]),
        element("div", { className: "why" }, [compactionReason(item)]),
      ]);
    case "stop": {
      const failed = item.reason !== "end_turn";
      return element("div", { className: `item marker${failed ? " failed" : ""}` }, [
        `Loop stopped (${item.reason}): ${item.detail}`,
      ]);
    }
    case "repair":
      return element("div", { className: "item marker" }, [
        `Transcript repaired: ${item.description}`,
      ]);
    case "marker":
      return element("div", { className: "item marker" }, [item.line]);
    case "hook":
      return renderHookRun(item);
  }
}

/** A hook's run: its event, command and ending on one line; what it said (or printed) below. */
function renderHookRun(item: Extract<ConversationItem, { kind: "hook" }>): HTMLElement {
  const failed = item.decision === "error" || item.decision === "block";
  const ending = item.exitCode === null ? "killed" : `exit ${item.exitCode}`;
  const took =
    item.durationMs < 1000 ? `${item.durationMs} ms` : `${(item.durationMs / 1000).toFixed(1)} s`;
  const said = [item.reason, item.output].filter((text): text is string => Boolean(text));
  return element("div", { className: `item marker hook${failed ? " failed" : ""}` }, [
    `${item.event} hook (${item.source}) $ ${item.command} — ${ending}, ${took}, ${item.decision}`,
    ...said.map((text) => element("pre", { className: "hook-output" }, [text])),
  ]);
}

function renderMessage(message: Message, label: string | undefined, subagents: Runs): HTMLElement {
  const blocks = typeof message.content === "string" ? [message.content] : message.content;
  const onlyResults = blocks.every((block) => isKnownBlock(block) && block.type === "tool_result");
  const role = label ?? (message.role === "user" && onlyResults ? "tool results" : message.role);
  const written = label ? " by-loop" : "";
  return element("div", { className: `item message ${message.role}${written}` }, [
    element("div", { className: "role" }, [role]),
    ...blocks.map((block) => renderBlock(block, subagents)),
  ]);
}

function renderBlock(block: unknown, subagents: Runs): HTMLElement {
  if (typeof block === "string") return element("div", { className: "bubble" }, [block]);
  if (!isKnownBlock(block)) {
    return element("pre", { className: "bubble unknown" }, [
      `(unrecognised content) ${JSON.stringify(block)}`,
    ]);
  }
  switch (block.type) {
    case "text":
      return element("div", { className: "bubble" }, [block.text]);
    case "tool_use":
      return renderToolCall(block);
    case "tool_result":
      return renderToolResult(block, subagents[block.tool_use_id]);
    case "thinking":
      return renderThinking(block.thinking, block.signature ? "thinking (signed)" : "thinking");
    case "redacted_thinking":
      return renderThinking("", "thinking (redacted by the provider)");
    case "opaque":
      return renderThinking(block.thinking ?? "", `${String(block.item.type)} (kept as it came)`);
  }
}

/**
 * Reasoning is its own kind of step: dimmed and folded, never mistaken for the answer, and marked
 * as what the person at the terminal never read (the REPL prints only the answer).
 */
function renderThinking(text: string, label: string): HTMLElement {
  return element("div", { className: "card thinking" }, [
    element("div", { className: "label" }, [label]),
    element("div", { className: "unseen" }, ["not shown to the user"]),
    element("div", { className: "body" }, [text === "" ? "(no text was sent)" : foldedText(text)]),
  ]);
}

function renderToolCall(call: ToolUseBlock): HTMLElement {
  const fileTool = renderFileToolCall(call.name, call.input);
  const card = element("div", { className: `card tool-call${fileTool ? " file-tool" : ""}` }, [
    element("div", { className: "label" }, [call.name, element("code", {}, [call.id])]),
    element("div", { className: "body" }, fileTool ?? [foldedText(commandText(call.input))]),
  ]);
  card.dataset.toolId = call.id;
  return card;
}

function renderToolResult(result: ToolResultBlock, run: SubagentRun | undefined): HTMLElement {
  const content = contentText(result.content);
  const images = Array.isArray(result.content) ? resultImages(result.content).map(renderImage) : [];
  const status = [result.is_error ? "error" : "ok", resultEnding(content)]
    .filter(Boolean)
    .join(" · ");
  const card = element("div", { className: `card tool-result${result.is_error ? " error" : ""}` }, [
    element("div", { className: "label" }, [
      "result",
      element("code", {}, [result.tool_use_id]),
      element("span", { className: "status" }, [status]),
    ]),
    element("div", { className: "body" }, [
      renderDiffResult(content) ?? foldedText(content),
      ...images,
    ]),
    ...(run ? [renderSubagentRun(run)] : []),
  ]);
  card.dataset.toolId = result.tool_use_id;
  return card;
}

/** The child's run, closed until asked for; its own calls fold nothing further. */
function renderSubagentRun(run: SubagentRun): HTMLElement {
  const what = run.problem
    ? `its transcript could not be read: ${run.problem}`
    : `${run.messages.length} messages, stopped: ${run.reason}`;
  const summary = element("summary", {}, [`agent ${run.agentType} ${run.agentId}: ${what}`]);
  const details = lazyDetails(summary, () =>
    element(
      "div",
      { className: "subagent-run" },
      run.messages.map((message) => renderMessage(message, undefined, {})),
    ),
  );
  details.className = "subagent";
  return details;
}

/** An image a tool returned, shown inline as the model saw it. */
function renderImage(image: ImageBlock): HTMLImageElement {
  return element("img", {
    className: "result-image",
    src: `data:${image.mediaType};base64,${image.data}`,
    alt: `${image.mediaType} image from the tool`,
  });
}

/** A bash call's command, or any other call's input as JSON. */
function commandText(input: unknown): string {
  const command = (input as { command?: unknown } | null)?.command;
  return typeof command === "string" ? command : (JSON.stringify(input, null, 2) ?? "");
}

// agentloop writes text, or text and image parts; sessions written by other tools may carry
// other blocks, shown as JSON.
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? (content as { type?: unknown }[]) : [];
  if (parts.length > 0 && parts.every((part) => part.type === "text" || part.type === "image")) {
    return resultText(parts as ToolResultPart[]);
  }
  return JSON.stringify(content, null, 2) ?? "";
}
