// One teammate's life (course s13): a loop of its own beside the lead's, in the same process.
// It works on its prompt; between its tool rounds the messages in its inbox join its next
// request (the loop's notices seam); when it answers, the answer goes to the lead and it waits,
// idle, until a message or a task on the board it may claim wakes it, with the same history.
// It ends when the team is stopped: its worktree's changes are committed, its file closed.

import type { PreparedChild } from "../agents/agent-tool.js";
import type { LoopEvent, LoopStop } from "../core/events.js";
import {
  addUsage,
  emptyUsage,
  type Message,
  type ToolUseBlock,
  type Usage,
} from "../core/messages.js";
import type { Notice } from "../core/notices.js";
import type { Tool } from "../core/tool.js";
import { agentLoop, createLoopState } from "../loop.js";
import { costOf } from "../session/cost.js";
import { createBell } from "./bell.js";
import { createInbox, type Inbox, messageText } from "./mailbox.js";

export type TeammatePhase = "working" | "idle" | "stopped";

export interface Teammate {
  readonly name: string;
  readonly child: PreparedChild;
  readonly inbox: Inbox;
  phase(): TeammatePhase;
  /** What it does now, in a few words: its last tool call, or why it waits. */
  doing(): string;
  turns(): number;
  toolCalls(): number;
  usage(): Usage;
  /** In US dollars; null when its model's price is not known. */
  cost(): number | null;
  /** Something it may want changed on the board: it looks again if it is idle. */
  nudge(): void;
  /** Resolves (never rejects) once it has ended, with what became of its worktree. */
  readonly ended: Promise<string | undefined>;
}

export interface TeammateOptions {
  name: string;
  child: PreparedChild;
  prompt: string;
  /** What it has beside its child's tools: send_message and the board, as itself. */
  tools: readonly Tool[];
  /** Its turns for each piece of work (a prompt, a wake), at most. */
  maxTurns: number;
  /** Aborted when the team stops. */
  signal: AbortSignal;
  /** A task of the board it may take now, as the prompt that offers it; null when none. */
  claimable(name: string): string | null;
  /** Each event of its loop, after its own file has it. */
  onEvent(event: LoopEvent): void;
  /** A message was taken from its inbox into its next request. */
  onRead(from: string): LoopEvent;
  /** Its loop stopped with its answer; it is still "working" while this runs. */
  onAnswer(stop: LoopStop): void;
}

export function startTeammate(options: TeammateOptions): Teammate {
  const { name, child, signal } = options;
  const bell = createBell();
  const inbox = createInbox(() => bell.ring());
  const toolbox = child.toolbox(options.tools);
  const state = createLoopState([]);
  let phase: TeammatePhase = "working";
  let doing = "starting";
  let turns = 0;
  let toolCalls = 0;
  let usage = emptyUsage();
  let cost: number | null = 0;

  // Its messages join its next request between two tool rounds, as notices of the loop.
  const notices = (): Notice[] =>
    inbox
      .take()
      .map((message) => ({ text: messageText(message), event: options.onRead(message.from) }));

  /** Runs the loop on the history as it stands, recording and counting each event. */
  async function work(): Promise<LoopStop> {
    const loop = agentLoop(state, {
      provider: child.provider,
      toolbox,
      system: child.system,
      maxTurns: options.maxTurns,
      signal,
      limits: child.limits,
      beforeStop: child.beforeStop,
      notices,
    });
    while (true) {
      const step = await loop.next();
      if (step.done) return step.value;
      const event = step.value;
      child.writer.recordEvent(event);
      if (event.type === "tool_start") {
        toolCalls += 1;
        doing = describe(event.call);
      }
      if (event.type === "assistant_message") {
        turns += 1;
        usage = addUsage(usage, event.usage);
        const dollars = costOf(child.provider.model, event.usage);
        cost = cost === null || dollars === null ? null : cost + dollars;
      }
      options.onEvent(event);
    }
  }

  /** What wakes it: the messages in its inbox, or a task it may claim; null once stopped. */
  async function nextPrompt(): Promise<string | null> {
    while (!signal.aborted) {
      const messages = inbox.take();
      if (messages.length > 0) {
        for (const message of messages) options.onEvent(options.onRead(message.from));
        return messages.map(messageText).join("\n\n");
      }
      const task = options.claimable(name);
      if (task !== null) return task;
      await bell.wait(signal);
    }
    return null;
  }

  async function live(): Promise<void> {
    let prompt: string | null = options.prompt;
    while (prompt !== null && !signal.aborted) {
      phase = "working";
      doing = "thinking";
      addPrompt(state.messages, prompt, child.writer);
      const stop = await work();
      options.onAnswer(stop);
      if (stop.reason === "error" || stop.reason === "interrupted") return;
      phase = "idle";
      doing = "waiting for a message or a task";
      prompt = await nextPrompt();
    }
  }

  const ended = live()
    .catch(() => undefined)
    .then(async () => {
      phase = "stopped";
      doing = "stopped";
      // Its tools are freed by finish, as a foreground child's are.
      child.writer.close();
      return child
        .finish()
        .catch((error: Error) => `its worktree was left as it is: ${error.message}`);
    });

  return {
    name,
    child,
    inbox,
    phase: () => phase,
    doing: () => doing,
    turns: () => turns,
    toolCalls: () => toolCalls,
    usage: () => usage,
    cost: () => cost,
    nudge: () => bell.ring(),
    ended,
  };
}

/**
 * The prompt of a new piece of work joins the history, and its file. After a run cut short by
 * its turn limit the history ends with the tool results: the prompt goes into that same user
 * message, as the APIs need (its file has it as a message of its own, which a resume merges).
 */
function addPrompt(messages: Message[], text: string, writer: PreparedChild["writer"]): void {
  const message: Message = { role: "user", content: text };
  writer.recordMessage(message);
  const last = messages.at(-1);
  if (last?.role === "user" && Array.isArray(last.content)) {
    last.content.push({ type: "text", text });
  } else messages.push(message);
}

/** `bash: npm test`, `write: notes.md`: a call in a few words, for /team. */
function describe(call: ToolUseBlock): string {
  const input = call.input as Record<string, unknown> | null;
  const first = Object.values(input ?? {}).find((value) => typeof value === "string");
  const said = typeof first === "string" ? `${call.name}: ${first.split("\n")[0]}` : call.name;
  return said.length > 60 ? `${said.slice(0, 59)}…` : said;
}
