// A live line at the terminal for the moments when nothing else moves: a spinner while the
// model has not answered yet, the countdown to a retry, the time a slow tool has been running.
// It is a single line, drawn only on timer ticks and erased whenever a loop event arrives, so
// whatever the renderer writes next starts on a clean line. Piped, it draws nothing at all.

import type { LoopEvent } from "../core/events.js";
import { plural } from "../core/wording.js";
import { stringWidth } from "./text-width.js";

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  /**
   * Read at every draw. The line is clipped to fit, so that it never wraps: erasing it erases
   * the row the cursor is on, and a row above would be left behind.
   */
  columns?: number;
}

export interface ProgressOptions {
  output: ProgressOutput;
  /** Whether to draw at all; by default, whether the output is a terminal. */
  enabled?: boolean;
  color?: boolean;
  /**
   * Whether the answer's text is shown as it streams (the renderer's option of the same name).
   * If it is not, the spinner goes on while the answer is written, with a token estimate.
   */
  streamText?: boolean;
  /** How many background tasks are running, shown at the end of the line while there are any. */
  runningTasks?: () => number;
  /** Milliseconds; injectable so that tests control the clock. */
  now?: () => number;
  frames?: readonly string[];
}

export interface Progress {
  /** Give it every loop event, just before the renderer gets the same one. */
  onEvent(event: LoopEvent): void;
  /** Erases the line before something else is written; the next tick draws it again. */
  beforeOutput(): void;
  /** Erases the line and draws nothing until the returned function is called (a question). */
  hold(): () => void;
  /** Erases the line and stops the timer: the run ended or was interrupted. */
  stop(): void;
}

export const TICK_MS = 100;
/** Tools that finish sooner show no timer, so quick commands add no flicker. */
export const TOOL_DELAY_MS = 500;
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const ERASE = "\r\x1b[K";
const DEFAULT_COLUMNS = 80;

type Phase =
  | { kind: "idle" }
  /**
   * A request is on its way; `chars` counts the answer's text while it is not shown, and
   * `thought` holds the latest words of the model's thinking, when it shows any.
   */
  | { kind: "waiting"; since: number; chars: number; thought?: string }
  | { kind: "retry"; until: number; attempt: number; reason: string }
  | { kind: "tool"; since: number; running: readonly string[] };

const IDLE: Phase = { kind: "idle" };

export function createProgress(options: ProgressOptions): Progress {
  const { output } = options;
  if (!(options.enabled ?? output.isTTY === true)) {
    return { onEvent() {}, beforeOutput() {}, hold: () => () => {}, stop() {} };
  }
  const now = options.now ?? (() => performance.now());
  const frames = options.frames ?? FRAMES;
  const streamText = options.streamText ?? true;
  let phase: Phase = IDLE;
  let timer: ReturnType<typeof setInterval> | undefined;
  let drawn = false;
  let ticks = 0;
  let holds = 0;

  const erase = () => {
    if (drawn) output.write(ERASE);
    drawn = false;
  };
  const draw = (text: string) => {
    // A terminal whose size nobody set (a bare pty) reports 0 columns.
    const width = (output.columns || DEFAULT_COLUMNS) - 1;
    const line = clip(text, width);
    output.write(`${ERASE}${options.color ? `\x1b[2m${line}\x1b[0m` : line}`);
    drawn = true;
  };

  const tick = () => {
    if (holds > 0) return;
    const at = now();
    if (phase.kind === "retry" && at >= phase.until) {
      phase = { kind: "waiting", since: phase.until, chars: 0 };
    }
    const text = describe(phase, at, frames[ticks++ % frames.length] ?? "");
    const tasks = options.runningTasks?.() ?? 0;
    if (text === null) erase();
    else draw(tasks > 0 ? `${text} · ${plural(tasks, "background task")} running` : text);
  };

  // The timer runs only while there is something to show; unref'd, it never keeps Node alive.
  const syncTimer = () => {
    if (phase.kind === "idle" && timer) {
      clearInterval(timer);
      timer = undefined;
    } else if (phase.kind !== "idle" && !timer) {
      ticks = 0;
      timer = setInterval(tick, TICK_MS);
      timer.unref?.();
    }
  };

  return {
    onEvent(event) {
      erase();
      phase = next(phase, event, now(), streamText);
      syncTimer();
    },
    beforeOutput: erase,
    hold() {
      holds += 1;
      erase();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        // The time a person took to answer is not the tool's running time.
        if (holds === 0 && phase.kind === "tool") phase = { ...phase, since: now() };
      };
    },
    stop() {
      erase();
      phase = IDLE;
      syncTimer();
    },
  };
}

/** What the loop is waiting for after this event. */
function next(phase: Phase, event: LoopEvent, at: number, streamText: boolean): Phase {
  switch (event.type) {
    case "turn_start":
      return { kind: "waiting", since: at, chars: 0 };
    case "text_delta": {
      // Shown text moves by itself, and the spinner must not draw over a half-written line.
      if (streamText) return IDLE;
      const waiting = phase.kind === "waiting" ? phase : { since: at, chars: 0 };
      return { kind: "waiting", since: waiting.since, chars: waiting.chars + event.text.length };
    }
    case "thinking_delta": {
      const waiting = phase.kind === "waiting" ? phase : { since: at, chars: 0, thought: "" };
      const thought = latestWords(`${waiting.thought ?? ""}${event.text}`);
      return { kind: "waiting", since: waiting.since, chars: waiting.chars, thought };
    }
    case "retry": {
      // A tab or a carriage return would move the cursor where clipping does not count.
      const reason = (event.reason.split("\n")[0] ?? "").replace(/\s/g, " ");
      return { kind: "retry", until: at + event.delayMs, attempt: event.attempt, reason };
    }
    case "tool_start":
      return phase.kind === "tool"
        ? { ...phase, running: [...phase.running, event.call.id] }
        : { kind: "tool", since: at, running: [event.call.id] };
    case "tool_end": {
      if (phase.kind !== "tool") return phase;
      const running = phase.running.filter((id) => id !== event.call.id);
      return running.length > 0 ? { ...phase, running } : IDLE;
    }
    // The list follows its tool's end and changes nothing that is awaited; nor does a task or a
    // hook's run; a subagent's events come while its agent call runs.
    case "todos":
    case "task_started":
    case "task_notification":
    case "task_stopped":
    case "subagent":
    case "hook":
    case "part":
      return phase;
    case "assistant_message":
    case "tool_results":
    case "continuation":
    case "turn_end":
    case "compaction":
    case "stop":
      return IDLE;
  }
}

/** The live line for this phase, or null when there is nothing to show yet. */
function describe(phase: Phase, at: number, frame: string): string | null {
  switch (phase.kind) {
    case "idle":
      return null;
    case "waiting": {
      const elapsed = duration(at - phase.since);
      if (phase.chars === 0) {
        const words = phase.thought?.trim();
        return words ? `${frame} thinking… ${elapsed} · ${words}` : `${frame} thinking… ${elapsed}`;
      }
      return `${frame} writing… ${elapsed} · ~${Math.ceil(phase.chars / 4)} tokens`;
    }
    case "retry": {
      const left = (Math.max(0, phase.until - at) / 1000).toFixed(1);
      return `↻ retrying in ${left} s (attempt ${phase.attempt}): ${phase.reason}`;
    }
    case "tool": {
      const elapsed = at - phase.since;
      return elapsed < TOOL_DELAY_MS ? null : `  ⎿ running… ${duration(elapsed)}`;
    }
  }
}

/** The thinking's last words, on one line, short enough to fit beside the timer in 80 columns. */
const THOUGHT_CHARS = 50;

function latestWords(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  // Cut at a word: a line starting mid-word reads as a typo.
  return flat.length > THOUGHT_CHARS ? flat.slice(-THOUGHT_CHARS).replace(/^\S*\s/, "") : flat;
}

/** `3.2 s` under a minute, `2 m 05 s` after. */
export function duration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)} m ${String(whole % 60).padStart(2, "0")} s`;
}

/** The text cut to `width` columns: a character of East Asian text takes two. */
function clip(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let clipped = "";
  for (const char of text) {
    if (stringWidth(`${clipped}${char}…`) > width) break;
    clipped += char;
  }
  return `${clipped}…`;
}
