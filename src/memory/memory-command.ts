// The person in charge of the memory: /memory in the REPL and `agentloop memory` in the shell
// list what is remembered and where, forget or pin an entry, clear it all (a backup is kept),
// and approve or reject what waits in the inbox ("memory": "ask").

import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { plural } from "../core/wording.js";
import { describeEntry, type MemoryEntry } from "./entry.js";
import { type MemoryStore, memoryDirectory, openMemoryStore } from "./store.js";

export interface MemoryStores {
  main: MemoryStore;
  /** What an extraction proposed under "memory": "ask", waiting for the person's yes. */
  inbox: MemoryStore;
  /** The session that approves, for the record an approved entry keeps. */
  session: string;
}

/**
 * The project's stores as the person reaches them outside a session that remembers (the shell,
 * /memory with memory off): what they do here was redacted when it was first written.
 */
export function storesFor(cwd: string, env: NodeJS.ProcessEnv, session: string): MemoryStores {
  const directory = memoryDirectory(cwd, env);
  const unchanged = (text: string) => text;
  return {
    main: openMemoryStore({ directory, cwd, redact: unchanged }),
    inbox: openMemoryStore({ directory: join(directory, "inbox"), cwd, redact: unchanged }),
    session,
  };
}

export const MEMORY_COMMAND_HELP =
  "[list | forget ID | pin ID | approve ID|all | reject ID|all | clear]";

/** What a command prints; throws a ConfigError for a command it does not know. */
export async function runMemoryCommand(words: string[], stores: MemoryStores): Promise<string> {
  const [verb = "list", argument, ...rest] = words;
  const { main, inbox } = stores;
  const needsId = ["forget", "pin", "approve", "reject"].includes(verb);
  if (rest.length > 0 || (needsId && !argument) || (!needsId && argument)) {
    throw new ConfigError(`Usage: memory ${MEMORY_COMMAND_HELP}`);
  }
  const id = argument ?? "";
  switch (verb) {
    case "list":
      return listing(stores);
    case "forget": {
      const gone = await main.forget(id);
      return gone ? `Forgot ${listed(gone)}.` : noSuchEntry(id);
    }
    case "pin": {
      const pinned = await main.pin(id);
      return pinned ? `Pinned ${listed(pinned)}.` : noSuchEntry(id);
    }
    case "approve":
    case "reject": {
      const chosen = inbox.entries().filter((entry) => id === "all" || entry.id === id);
      if (chosen.length === 0) return `Nothing in the inbox has the id ${id}.`;
      for (const entry of chosen) {
        if (verb === "approve") await main.add(entry.topic, entry.text, stores);
        await inbox.forget(entry.id);
      }
      const done = verb === "approve" ? "Remembered" : "Rejected";
      return `${done} ${plural(chosen.length, "entry", "entries")}.`;
    }
    case "clear": {
      const count = main.entries().length;
      const backup = await main.replaceAll([]);
      return `Forgot ${plural(count, "entry", "entries")}; the previous files are in ${backup}.`;
    }
    default:
      throw new ConfigError(`Usage: memory ${MEMORY_COMMAND_HELP}`);
  }
}

function listing({ main, inbox }: MemoryStores): string {
  const entries = main.entries();
  const waiting = inbox.entries();
  const lines = [`Memory index: ${main.indexPath}`];
  lines.push(entries.length === 0 ? "Nothing is remembered." : byTopic(entries));
  if (waiting.length > 0) {
    lines.push(`Waiting for your yes (memory approve ID or all, reject ID or all):`);
    lines.push(byTopic(waiting));
  }
  return lines.join("\n");
}

function byTopic(entries: readonly MemoryEntry[]): string {
  const topics = [...new Set(entries.map((entry) => entry.topic))];
  return topics
    .map((topic) => {
      const mine = entries.filter((entry) => entry.topic === topic);
      return [`  ${topic}:`, ...mine.map((entry) => `    ${listed(entry)}`)].join("\n");
    })
    .join("\n");
}

function noSuchEntry(id: string): string {
  return `No entry has the id ${id}; memory list shows them.`;
}

/** An entry as the person reads it: its session's whole id, which `agentloop view` takes. */
function listed(entry: MemoryEntry): string {
  return describeEntry(entry, { wholeSession: true });
}
