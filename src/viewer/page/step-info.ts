// The facts of one step: which turn it was, why the model stopped, why the loop went on (or
// that it stopped), what the request cost in tokens and how long the model took; for a summary
// request, what it sent; for the first request after a compaction, what the compaction did; and
// the model's todo list and the skills loaded as they stood.

import type { TodoItem, TodoStatus } from "../../core/todo-item.js";
import type { ConversationItem, Step } from "../timeline.js";
import { compactionReason, describeCompaction } from "./compaction.js";
import { element } from "./dom.js";
import { formatCount } from "./format.js";

export function renderStepInfo(
  container: HTMLElement,
  step: Step,
  items: ConversationItem[],
): void {
  const facts: HTMLElement[] = [];
  const reply = step.reply;
  const compaction = step.compaction === null ? null : items[step.compaction];
  if (compaction?.kind === "compaction") {
    const compacted = fact(
      "compacted",
      `${describeCompaction(compaction)} (${compactionReason(compaction)})`,
    );
    compacted.classList.add("compacted");
    facts.push(compacted);
  }
  if (step.summary) {
    const count = formatCount(step.summary.summarizedCount);
    const sent = fact(
      "summary request",
      `sent ${count} messages of the history, then these instructions`,
    );
    sent.title =
      "The session file records how many messages the summary request sent and its instructions, not a copy of the request: it is shown rebuilt from the history as it stood (the loop may have cleared results in it to make it fit).";
    facts.push(sent);
  } else if (reply) {
    facts.push(fact("turn", String(reply.turn ?? "?")));
    facts.push(fact("stop_reason", reply.stopReason ?? "not recorded"));
  }
  if (reply) {
    if (reply.usage) {
      const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } =
        reply.usage;
      facts.push(
        fact("tokens", `${formatCount(input_tokens)} in · ${formatCount(output_tokens)} out`),
      );
      if (cache_read_input_tokens + cache_creation_input_tokens > 0) {
        const cache = `${formatCount(cache_read_input_tokens)} read · ${formatCount(cache_creation_input_tokens)} written`;
        facts.push(fact("cache", cache));
      }
    }
    if (reply.durationMs !== null) facts.push(fact("duration", duration(reply.durationMs)));
  } else {
    facts.push(fact("reply", "none recorded: the session ends while this request was pending"));
  }
  if (step.todos.length > 0) facts.push(fact("todos", todosLine(step.todos)));
  if (step.skills.length > 0) facts.push(fact("skills", step.skills.join(", ")));
  if (step.transitionReason) facts.push(fact("transition", step.transitionReason));
  if (step.stop) {
    const stopped = fact("loop stopped", `${step.stop.reason}: ${step.stop.detail}`);
    stopped.classList.add("stopped");
    if (step.stop.reason !== "end_turn") stopped.classList.add("failed");
    facts.push(stopped);
  }
  container.replaceChildren(...facts);
}

function fact(name: string, value: string): HTMLElement {
  const node = element("span", { className: "fact" }, [element("b", {}, [name]), value]);
  node.dataset.fact = name;
  return node;
}

const TODO_MARKS: Record<TodoStatus, string> = {
  completed: "✔",
  in_progress: "▶",
  pending: "☐",
  cancelled: "✘",
};

/** The list as it stood for this request, on one line: done ticked, the current one marked. */
function todosLine(todos: readonly TodoItem[]): string {
  return todos.map((item) => `${TODO_MARKS[item.status]} ${item.content}`).join(" · ");
}

function duration(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
