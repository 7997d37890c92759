// The memory part (s09): what the agent learns in one session, kept for the next ones in this
// project. Opt-in. The head of the index goes into the system prompt; the memory tool adds,
// updates and forgets entries; at the end of a session and before a compaction one request
// proposes entries from the history; an index past its budget is consolidated. Every read and
// write is an event, and /memory shows the person what is remembered and where.

import { basename, join } from "node:path";
import type { LoopEvent } from "../core/events.js";
import type { Message } from "../core/messages.js";
import type { PartCommand, PartHost, SessionPart } from "../core/part.js";
import { userSettingsPath } from "../core/settings.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { redactSecretShapes } from "../permissions/secret-shapes.js";
import { askModel } from "./ask-model.js";
import { applyConsolidation, CONSOLIDATION_SYSTEM, consolidationRequest } from "./consolidation.js";
import { timeStamp } from "./entry.js";
import { EXTRACTION_SYSTEM, extractionRequest, parseProposals } from "./extraction.js";
import { MEMORY_COMMAND_HELP, runMemoryCommand, storesFor } from "./memory-command.js";
import { memoryEvent, writeEvent } from "./memory-events.js";
import { createMemoryTool } from "./memory-tool.js";
import { indexHead, memorySection, overBudget } from "./prompt-section.js";
import { chooseMemory } from "./settings.js";
import { memoryDirectory, openMemoryStore } from "./store.js";

export interface MemoryPartOptions {
  cwd: string;
  /** The real environment: where the user's settings and agentloop's state are. */
  env: NodeJS.ProcessEnv;
  /** --memory */
  flag: boolean;
  /** The same redaction as tool output's, applied to every text before it is written. */
  redact(text: string): string;
  /** Before the session starts (a project setting not followed, proposals waiting). */
  noticeAtStart(sentence: string): void;
  /** While it runs and as it ends, at once (what the last extraction remembered). */
  notice(sentence: string): void;
}

/**
 * The memory part. With memory off, nothing of it is offered or read: the part is only /memory,
 * which says how to turn it on and, as `agentloop memory` does, reaches the memory on request.
 */
export async function startMemoryPart(options: MemoryPartOptions): Promise<SessionPart> {
  const choice = await chooseMemory({
    flag: options.flag,
    workspace: options.cwd,
    env: options.env,
    notice: options.noticeAtStart,
  });
  if (choice === "off") return memoryOffPart(options);
  const directory = memoryDirectory(options.cwd, options.env);
  const store = openMemoryStore({ directory, cwd: options.cwd, redact: options.redact });
  const inbox = openMemoryStore({
    directory: join(directory, "inbox"),
    cwd: options.cwd,
    redact: options.redact,
  });
  const waiting = inbox.entries().length;
  if (waiting > 0) {
    options.noticeAtStart(
      `${plural(waiting, "proposed memory", "proposed memories")} wait for your yes: /memory lists them.`,
    );
  }
  // Entries saved before secrets were refused by their shape are not resent either.
  const head = indexHead(redactSecretShapes(store.index()));
  let host: PartHost | undefined;
  const session = () => (host ? basename(host.directory()) : "");
  // @step memory.read: The memory's index goes into the system prompt at the start.
  let pending: LoopEvent[] = [
    memoryEvent(
      "read",
      `Memory: ${plural(store.entries().length, "entry", "entries")} (${plural(head.lines, "line")} of the index) in the system prompt`,
      { index: store.indexPath, lines: head.lines, bytes: head.bytes, cut: head.cut },
    ),
  ];
  const record = (event: LoopEvent) => pending.push(event);
  const take = () => {
    const out = pending;
    pending = [];
    return out;
  };

  async function consolidateIfOver(): Promise<LoopEvent[]> {
    if (!host || !overBudget(store.index())) return [];
    const entries = store.entries();
    // @step memory.consolidation_failed: A consolidation that failed changes nothing.
    const failed = (why: string) => [
      memoryEvent("consolidation_failed", `Memory not consolidated: ${why}`, { reason: why }),
    ];
    let answer: string;
    try {
      const text = consolidationRequest(entries);
      answer = await askModel(host.provider(), { system: CONSOLIDATION_SYSTEM, text });
    } catch (error) {
      return failed(`the request failed (${(error as Error).message}); nothing was changed.`);
    }
    const result = applyConsolidation(entries, answer, { session: session(), at: timeStamp() });
    if (!result) return failed("the answer named no entry to keep; nothing was changed.");
    // @step memory.consolidated: A memory over its budget is rewritten shorter by the model.
    const backup = await store.replaceAll(result.entries);
    const line = `Memory consolidated: ${entries.length} entries to ${result.entries.length} (${result.kept} kept, ${result.merged} merged, ${result.dropped} dropped); the previous files are in ${backup}`;
    const { kept, merged, dropped } = result;
    return [memoryEvent("consolidated", line, { kept, merged, dropped, backup })];
  }

  // The history already read for proposals: a later extraction reads only what came after it.
  let read: { messages: readonly Message[]; count: number } = { messages: [], count: 0 };
  async function extract(by: string, signal?: AbortSignal): Promise<LoopEvent[]> {
    if (!host) return [];
    const history = host.history();
    const fresh = history.slice(history === read.messages ? read.count : 0);
    read = { messages: history, count: history.length };
    // A session where the person said nothing new costs no request.
    if (!fresh.some(isPrompt)) return [];
    const known = store.entries();
    let answer: string;
    try {
      const text = extractionRequest(fresh, known);
      answer = await askModel(host.provider(), { system: EXTRACTION_SYSTEM, text, signal });
    } catch (error) {
      // @step memory.extraction_failed: Reading the session for memories failed; nothing is saved.
      const line = `Memory extraction ${by} failed: ${(error as Error).message}`;
      return [memoryEvent("extraction_failed", line, { by })];
    }
    // Nothing twice: not what is remembered, nor what already waits for a yes.
    const same = new Set([...known, ...inbox.entries()].map((entry) => entry.text.toLowerCase()));
    const events: LoopEvent[] = [];
    const writer = { session: session() };
    for (const proposal of parseProposals(answer)) {
      if (same.has(proposal.text.toLowerCase())) continue;
      same.add(proposal.text.toLowerCase());
      if (choice === "ask") {
        events.push(
          writeEvent("proposed", await inbox.add(proposal.topic, proposal.text, writer), by),
        );
      } else {
        events.push(
          writeEvent("remembered", await store.add(proposal.topic, proposal.text, writer), by),
        );
      }
    }
    return [...events, ...(await consolidateIfOver())];
  }

  const tools: Tool[] = [
    createMemoryTool({
      store,
      inbox: choice === "ask" ? inbox : undefined,
      session,
      record,
      afterWrite: async () => {
        for (const event of await consolidateIfOver()) record(event);
      },
    }) as Tool,
  ];
  const none: Tool[] = [];
  return {
    name: "memory",
    // A subagent reports to its parent, which decides what is worth keeping.
    tools: (offer) => (offer.forChild ? none : tools),
    systemPrompt: () => memorySection(head, store.indexPath),
    attach(given) {
      host = given;
    },
    historyStarted(start, messages) {
      // A summary covers what was read before it; a new or resumed history starts unread.
      read =
        start === "compact" ? { messages, count: messages.length } : { messages: [], count: 0 };
    },
    async beforeCompact(_trigger, _focus, signal) {
      for (const event of await extract("before a compaction", signal)) record(event);
    },
    eventsBefore: take,
    eventsAfter: take,
    async endWork() {
      const events = [...take(), ...(await extract("at the end of the session"))];
      for (const event of events) {
        if (event.type === "part" && event.name !== "read") options.notice(event.line);
      }
      return events;
    },
    commands: [
      memoryCommand((words) => runMemoryCommand(words, { main: store, inbox, session: session() })),
    ],
  };
}

function memoryCommand(run: (words: string[]) => Promise<string>): PartCommand {
  return {
    name: "/memory",
    argument: "[ACTION]",
    help: `what is remembered for this project and where; ACTION: ${MEMORY_COMMAND_HELP.slice(1, -1)}`,
    run: (argument) => run(argument.split(/\s+/).filter(Boolean)),
  };
}

function memoryOffPart(options: MemoryPartOptions): SessionPart {
  let host: PartHost | null = null;
  const off = `Memory is off in this session: nothing is remembered or read. To turn it on, put "memory": true in ${userSettingsPath(options.env)}, or start agentloop with --memory.`;
  return {
    name: "memory",
    attach(given) {
      host = given;
    },
    commands: [
      memoryCommand(async (words) => {
        const session = host ? basename(host.directory()) : "";
        const stores = storesFor(options.cwd, options.env, session);
        return `${off}\n${await runMemoryCommand(words, stores)}`;
      }),
    ],
  };
}

/** A message with the person's own words (not only tool results). */
function isPrompt(message: Message): boolean {
  if (message.role !== "user") return false;
  if (typeof message.content === "string") return message.content.trim() !== "";
  return message.content.some((block) => block.type === "text" && block.text.trim() !== "");
}
