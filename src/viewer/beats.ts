// The replay at its finest grain: one beat for each thing the loop or a chapter did, in the order
// the session file recorded them. A beat names the code that did it by the keys of its
// `// @step KEY:` anchors (see step-sources.ts), says which of the course's five steps it is, and
// where messages[] stood after it, so the lesson view can light the step and grow the array.
//
// The keys follow the anchors' naming, so no chapter needs a case here: a part's event is
// PART.NAME, a tool is tool.NAME, a background event background.TYPE, a compaction
// compaction.KIND.

import type { TransitionReason } from "../core/events.js";
import type { Message, ToolResultBlock } from "../core/messages.js";
import type { ContextReplay } from "./contexts.js";
import { isKnownBlock } from "./known-block.js";

/**
 * The course's five steps of the loop (s01): the prompt goes into messages[], messages[] and the
 * tools go to the model, the reply is appended, each tool_use is run, the tool_results are
 * appended with their ids.
 */
export type LessonStep = 1 | 2 | 3 | 4 | 5;

export interface Beat {
  /** The anchors of the code that did it: the loop's own first, then a chapter's. */
  code: string[];
  /** Which of the five steps it is; null for what a chapter does beside them. */
  lesson: LessonStep | null;
  /** The conversation item it shows: the prompt, the reply, the results, the hook's line... */
  item: number;
  /** messages[] as it stood after this beat: `contexts[context].slice(0, count)`. */
  context: number;
  count: number;
  /** The request whose page the beat is on, as an index into `steps`. */
  step: number;
  /** What the beat did, beside its code's note: the tool's name, the hook's event, the stop's reason. */
  label?: string;
  /** For a tool's beat, the tool_use_id of the call it ran. */
  call?: string;
  /** Why the loop went on after this beat, when the turn ended here. */
  transition?: TransitionReason;
}

const REASONING = new Set(["thinking", "redacted_thinking", "opaque"]);
const isImage = (part: { type: string }) => part.type === "image";

export class BeatLog {
  readonly beats: Beat[] = [];
  /** The latest reply's tool calls not yet shown run, by id, with the tool's name. */
  private calls = new Map<string, string>();
  /** The latest reply's item: a tool's beat shows the call there. */
  private replyItem = 0;

  constructor(private readonly replay: ContextReplay) {}

  prompt(item: number): void {
    this.add({ code: ["loop.prompt"], lesson: 1, item });
  }

  /** A reply arrived: the request that asked for it was sent, then the reply was appended. */
  reply(message: Message, item: number, sent: { context: number; count: number }): void {
    const blocks = typeof message.content === "string" ? [] : message.content.filter(isKnownBlock);
    this.calls = new Map(
      blocks.flatMap((block) => (block.type === "tool_use" ? [[block.id, block.name]] : [])),
    );
    this.replyItem = item;
    this.beats.push({ code: ["loop.send"], lesson: 2, item, step: -1, ...sent });
    const thought = blocks.some((block) => REASONING.has(block.type));
    this.add({ code: thought ? ["loop.reply", "thinking"] : ["loop.reply"], lesson: 3, item });
  }

  /** A hook ran; one that runs after its tool (PostToolUse) comes after the tool's beat. */
  hook(event: string, item: number, call: string | undefined): void {
    if (call && event.startsWith("Post")) this.toolRan(call, false);
    this.add({ code: ["hooks"], lesson: null, item, label: event });
  }

  /** The calls these results answer ran; called before the results join messages[]. */
  toolsRan(results: ToolResultBlock[]): void {
    for (const result of results) {
      const images = Array.isArray(result.content) && result.content.some(isImage);
      this.toolRan(result.tool_use_id, images);
    }
  }

  /** The results went back into messages[], each with its tool_use_id. */
  resultsAppended(item: number): void {
    this.add({ code: ["loop.results"], lesson: 5, item });
  }

  private toolRan(call: string, images: boolean): void {
    const name = this.calls.get(call);
    if (name === undefined) return;
    this.calls.delete(call);
    const code = ["loop.tool", name.startsWith("mcp__") ? "mcp.call" : `tool.${name}`];
    if (images) code.push("images");
    this.add({ code, lesson: 4, item: this.replyItem, label: name, call });
  }

  /** A message the loop wrote to keep the model going; which code wrote it, the turn's end says. */
  continuation(item: number): void {
    this.add({ code: ["loop.continue"], lesson: null, item });
  }

  turnEnd(reason: TransitionReason | null): void {
    const last = this.beats.at(-1);
    if (!last || reason === null) return;
    last.transition = reason;
    if (last.code[0] === "loop.continue" && reason === "stop_hook") last.code = ["loop.stop_check"];
  }

  /** Something beside the five steps: a compaction, a hook, a part's event, the loop's stop. */
  other(key: string, item: number, label?: string): void {
    this.add({ code: [key], lesson: null, item, ...(label ? { label } : {}) });
  }

  /** Gives each beat the request page its item is shown on (`shownCount` bounds each page). */
  placeOnSteps(shownCounts: number[]): void {
    let step = 0;
    for (const beat of this.beats) {
      while (step < shownCounts.length - 1 && beat.item >= (shownCounts[step] as number)) step += 1;
      beat.step = step;
    }
  }

  private add(beat: Omit<Beat, "context" | "count" | "step">): void {
    const { current, length } = this.replay;
    this.beats.push({ ...beat, context: current, count: length, step: -1 });
  }
}
