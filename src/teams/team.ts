// A team (course s13): the lead (the session) and the teammates it starts with the agent tool's
// `name` and `run_in_background`, at most MAX_TEAMMATES. Members are addressed by name; each
// has an inbox; they share the lead's task board. Everything a member does that the lead's
// session should know is announced to it: the messages between members in the order sent (the
// viewer shows them so), each teammate's requests (counted in the session's usage and cost, as
// a subagent's are) and its runs' ends (its transcript folded under the call that started it).

import type { BackgroundAgents, PreparedChild } from "../agents/agent-tool.js";
import { childReport, statusOf } from "../agents/report.js";
import type { LoopEvent, LoopStop, PartEvent, SubagentEvent } from "../core/events.js";
import { inputTokensOf } from "../core/messages.js";
import type { PartHost } from "../core/part.js";
import { type Board, openBoard } from "../tasks/board.js";
import { boardIdOf } from "../tasks/board-id.js";
import { taskLine } from "../tasks/board-text.js";
import { createBoardTools } from "../tasks/board-tools.js";
import { CHAPTER as TASKS } from "../tasks/chapter.js";
import { success } from "../tools/tool.js";
import { createInbox, type Inbox } from "./mailbox.js";
import { createSendMessage, type Post } from "./send-message.js";
import { startTeammate, type Teammate } from "./teammate.js";

/** Teammates a lead may start, at most: each is a loop of its own making requests at once. */
export const MAX_TEAMMATES = 4;
/** The session's own name on its team. */
export const LEAD = "lead";
/** A name a model can write and a branch can hold: `alice`, `db-expert`. */
const NAME = /^[A-Za-z][\w-]{0,31}$/;
/** A line of the terminal shows this much of a message. */
const SHOWN = 120;

/** What the team needs of the lead's session. */
export type TeamHost = Pick<PartHost, "announce" | "directory" | "runsQueuedPrompts">;

export interface TeamOptions {
  env: NodeJS.ProcessEnv;
  /** A teammate's turns for each piece of work, at most (--max-turns). */
  maxTurns: number;
  /** The lead's session, once it is attached. */
  host(): TeamHost | undefined;
  /** A message reached the lead's inbox. */
  leadMail(): void;
}

export interface Team extends Post {
  /** What the agent tool runs in the background: a teammate. */
  readonly agents: BackgroundAgents;
  /** The lead's inbox. */
  readonly lead: Inbox;
  teammates(): readonly Teammate[];
  /** True while a teammate works (not idle, not stopped). */
  working(): boolean;
  /** The board may have changed: idle teammates look for a task to claim. */
  boardChanged(): void;
  /** The event that says `reader` took `from`'s message into its next request. */
  readEvent(reader: string, from: string): PartEvent;
  /** Stops every teammate and waits until each has ended; the events that say so (once). */
  stop(): Promise<LoopEvent[]>;
}

export function createTeam(options: TeamOptions): Team {
  const members = new Map<string, Teammate>();
  const lead = createInbox(() => options.leadMail());
  const stopping = new AbortController();
  let opened: Board | undefined;
  let stopped: Promise<LoopEvent[]> | undefined;

  const announce = (events: LoopEvent[]) => options.host()?.announce(events);
  const event = (name: string, line: string, data: Record<string, unknown>): PartEvent => ({
    type: "part",
    part: "teams",
    name,
    line,
    data,
  });
  const names = () => [LEAD, ...members.keys()];
  /** The lead's board, which every member shares (one AGENTLOOP_TASK_LIST_ID names, or its own). */
  const board = (): Board => {
    const host = options.host();
    if (!host) throw new Error("The team's board is used before its session attached it.");
    const id = boardIdOf(options.env.AGENTLOOP_TASK_LIST_ID || undefined, host.directory());
    if (opened?.id !== id) opened = openBoard(id, options.env);
    return opened;
  };
  /** The tasks offered to each teammate already, so an idle one is woken once for each. */
  const offered = new Map<string, Set<string>>();

  function send(from: string, to: string, text: string): string | null {
    const teammate = members.get(to);
    const inbox = to === LEAD ? lead : teammate?.inbox;
    if (!inbox)
      return `There is no member "${to}" on your team; its members are ${names().join(", ")}.`;
    // No message waits where nobody will read it.
    if (teammate?.phase() === "stopped") return `${to} has stopped and reads no more messages.`;
    const shown = text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
    // @step teams.message: A member's message goes to another's inbox, in the order sent.
    announce([event("message", `${from} → ${to}: ${shown}`, { from, to, text })]);
    inbox.put({ from, to, text });
    return null;
  }

  const post: Post = { members: names, send };

  /** A task `name` may take now: pending, waiting for nothing, nobody's or its own. */
  function claimable(name: string): string | null {
    const seen = offered.get(name) ?? new Set<string>();
    offered.set(name, seen);
    const task = board()
      .peek()
      .find(
        (each) =>
          each.status === "pending" &&
          each.blocked_by.length === 0 &&
          (each.owner === null || each.owner === name) &&
          !seen.has(each.id),
      );
    if (!task) return null;
    seen.add(task.id);
    // @step teams.woken: An idle teammate wakes for a task of the board it may claim.
    announce([event("woken", `${name} wakes for task #${task.id}`, { name, task: task.id })]);
    return `Task #${task.id} on the board is ready to start and no one else has it: ${taskLine(task)}. If you take it on, claim it with task_update {"id": "${task.id}", "status": "in_progress"}, do it, and complete it.`;
  }

  function start(
    input: { name?: string; prompt: string },
    child: PreparedChild,
    parentToolUseId: string,
  ): Teammate {
    const name = input.name as string;
    const { agentId, writer } = child;
    const model = child.provider.model;
    const boardTools = createBoardTools({
      board,
      by: name,
      changed(change) {
        const task = "created" in change ? change.created : change.updated.task;
        // @step teams.board: A teammate changed the board the team shares.
        announce([event("board", `${name}: Board: ${taskLine(task)}`, { name, task })]);
        boardChanged();
      },
    });
    const teammate = startTeammate({
      name,
      child: { ...child, system: `${child.system}\n\n${briefing(name)}` },
      prompt: input.prompt,
      tools: [createSendMessage(name, post), ...TASKS.tools.map((tool) => boardTools[tool])],
      maxTurns: Math.min(child.agent.maxTurns, options.maxTurns),
      signal: stopping.signal,
      claimable,
      // Its reading of messages is the team's to show; its requests count in the session's cost,
      // and its run's end folds its file under the call that started it, as a subagent's.
      onEvent(loopEvent) {
        if (loopEvent.type === "part") return announce([loopEvent]);
        if (loopEvent.type !== "assistant_message" && loopEvent.type !== "stop") return;
        const forwarded: SubagentEvent = {
          type: "subagent",
          parent_tool_use_id: parentToolUseId,
          agentType: name,
          agentId,
          model,
          transcript: writer.path,
          event: loopEvent,
        };
        announce([forwarded]);
      },
      onRead: (from) => readEvent(name, from),
      onAnswer(stop: LoopStop) {
        if (stopping.signal.aborted) return;
        const report = childReport(stop.finalText, {
          agentType: name,
          agentId,
          status: statusOf(stop),
          toolCalls: teammate.toolCalls(),
          tokens: inputTokensOf(teammate.usage()) + teammate.usage().output_tokens,
          costUsd: teammate.cost(),
        });
        // Its final answer reaches the lead as a message, with the status line a subagent's has.
        send(name, LEAD, report);
      },
    });
    members.set(name, teammate);
    // One that ended on its own (its run failed) says so at once: a lead waiting for it stops
    // waiting. The others are told of when the team stops.
    void teammate.ended.then((worktree) => {
      if (!stopping.signal.aborted) announce([stoppedEvent(teammate, worktree)]);
    });
    return teammate;
  }

  const told = new Set<Teammate>();
  function stoppedEvent(teammate: Teammate, worktree: string | undefined): PartEvent {
    told.add(teammate);
    const line = `teammate ${teammate.name} stopped${worktree ? `; ${worktree}` : ""}`;
    // @step teams.teammate_stopped: A teammate ends: when the lead stops, or when its run failed.
    return event("teammate_stopped", line, { name: teammate.name, worktree });
  }

  function boardChanged() {
    for (const teammate of members.values()) teammate.nudge();
  }

  function readEvent(reader: string, from: string): PartEvent {
    // @step teams.read: A member reads a message: it joins its next request, between tool rounds.
    return event("read", `${reader} reads the message from ${from}`, { reader, from });
  }

  const agents: BackgroundAgents = {
    fields: {
      name: {
        type: "string",
        description:
          'With run_in_background: the teammate\'s name, such as "alice"; send_message reaches it by this name.',
      },
      run_in_background: {
        type: "boolean",
        description:
          "Start a teammate that works beside you, with the task board and send_message; its final answer comes to you as a message.",
      },
    },
    about: `With run_in_background and a name it starts a teammate: an agent of its own that works beside you (in its own git worktree when it may write), shares your task board and talks with send_message; it wakes for a message or for a task it may claim. At most ${MAX_TEAMMATES} teammates; you are "${LEAD}".`,
    refusal(input) {
      const name = input.name;
      if (options.host()?.runsQueuedPrompts() === "never") {
        return "Teammates need a front end that brings their messages to you: the REPL or -p.";
      }
      if (!name) return 'A teammate needs a name (such as "alice"): members are addressed by it.';
      if (!NAME.test(name)) {
        return `"${name}" cannot name a teammate: a letter, then letters, digits, "-" or "_" (at most 32).`;
      }
      if (name === LEAD || members.has(name)) {
        return `There is a member named "${name}" already; the members are ${names().join(", ")}.`;
      }
      if (members.size >= MAX_TEAMMATES) {
        return `The team has ${MAX_TEAMMATES} teammates, the most it may have: message one of them (${[...members.keys()].join(", ")}) instead.`;
      }
      if (stopping.signal.aborted) return "The team has stopped.";
      return null;
    },
    async start(input, child, context) {
      const teammate = start(input, child, context.toolUseId ?? "");
      const where = child.workspace ? ` in its own worktree, ${child.workspace}` : "";
      const line = `teammate ${teammate.name} started (${child.agent.name}, agent ${child.agentId})${where}`;
      // @step teams.teammate_started: A teammate starts: a loop of its own beside the lead's.
      announce([event("teammate_started", line, { name: teammate.name, agentId: child.agentId })]);
      const warning = child.warning ? `\n${child.warning}` : "";
      return success(
        `Started teammate ${teammate.name}${where}. It works beside you: its messages and its final answer will come to you; send_message {"to": "${teammate.name}"} reaches it.${warning}`,
      );
    },
  };

  return {
    ...post,
    agents,
    lead,
    teammates: () => [...members.values()],
    working: () => [...members.values()].some((teammate) => teammate.phase() === "working"),
    boardChanged,
    readEvent,
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        const running = [...members.values()].filter((teammate) => !told.has(teammate));
        return Promise.all(
          running.map(async (teammate) =>
            stoppedEvent(teammate, await teammate.ended.catch(() => undefined)),
          ),
        );
      })();
      return stopped;
    },
  };
}

/** What a teammate is told of its team, after its agent's own prompt. */
function briefing(name: string): string {
  return [
    `You are ${name}, a teammate: you work beside the lead ("${LEAD}") and the other teammates, on the same job.`,
    'send_message {"to", "text"} reaches a member by name; messages to you arrive between your steps as <teammate-message from="..."> blocks. The team shares a task board (task_list, task_get, task_update, task_create): claim a task by setting it in_progress, and complete it when it is done.',
    "Your final answer goes to the lead. Then you wait: a message, or a task you may claim, wakes you.",
  ].join("\n");
}
