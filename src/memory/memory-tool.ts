// The memory tool: the model adds, updates or forgets an entry of the project's memory, or
// reads a topic's file. A text shaped like a secret (an API key, a token, a private key) is
// refused with a reason the model can act on, since the memory is read into every later
// session's system prompt; the person's own secret values are redacted by the store besides,
// and the model is told when one was.

import type { PartEvent } from "../core/events.js";
import { secretKinds } from "../permissions/secret-shapes.js";
import { failure, success, type Tool } from "../tools/tool.js";
import { oneLine, topicName } from "./entry.js";
import { writeEvent } from "./memory-events.js";
import type { MemoryStore } from "./store.js";

export type MemoryToolInput = { action?: unknown; topic?: unknown; text?: unknown; id?: unknown };

export function createMemoryTool(options: {
  store: MemoryStore;
  /** Under "memory": "ask": where a new entry waits for the person's yes. */
  inbox?: MemoryStore;
  session(): string;
  record(event: PartEvent): void;
  /** After an entry was added or changed: the index may have passed its budget. */
  afterWrite(): Promise<void>;
}): Tool<MemoryToolInput> {
  const { store, record } = options;
  const by = "memory tool";
  return {
    name: "memory",
    description:
      "Your memory of this project, kept across sessions (its index is in your system prompt). " +
      'action "add" saves an entry: topic (preferences, project, corrections, ...) and text, one sentence. ' +
      '"update" rewrites the entry id with text (and topic, to move it); "forget" removes the entry id; ' +
      '"read" shows the topic\'s file. Save what a later session needs, never secrets.',
    inputSchema: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["add", "update", "forget", "read"] },
        topic: { type: "string", description: "Lowercase words joined by hyphens." },
        text: { type: "string", description: "The entry, one sentence." },
        id: { type: "string", description: "The entry's id, as in the index: m1a2b3." },
      },
      required: ["action"],
    },
    // It changes only agentloop's own memory, which the person turned on; writes are queued.
    isReadOnly: () => true,
    async run(input) {
      const topic = input.topic === undefined ? undefined : topicName(String(input.topic));
      if (topic === null) {
        return failure("topic must be lowercase words joined by hyphens, such as preferences.");
      }
      const text = typeof input.text === "string" ? oneLine(input.text) : "";
      const id = typeof input.id === "string" ? input.id.replace(/^\[|\]$/g, "") : "";
      const secret = refusedSecret(text);
      if (secret) return failure(secret);
      // @step tool.memory: The memory tool adds, updates, forgets or reads entries.
      switch (input.action) {
        case "add": {
          if (!topic || !text) return failure('"add" needs a topic and a text.');
          const writer = { session: options.session() };
          if (options.inbox) {
            // @step memory.proposed: Under "memory": "ask", a new entry waits for the person's yes.
            const proposed = await options.inbox.add(topic, text, writer);
            record(writeEvent("proposed", proposed, by));
            return success(
              `Proposed [${proposed.id}]: it is remembered once the user approves it with /memory.${redactedNote(text, proposed.text)}`,
            );
          }
          // @step memory.remembered: The model saves an entry to the project's memory.
          const entry = await store.add(topic, text, writer);
          record(writeEvent("remembered", entry, by));
          await options.afterWrite();
          return success(`Remembered [${entry.id}] in ${topic}.${redactedNote(text, entry.text)}`);
        }
        case "update": {
          if (!id || (!text && !topic)) return failure('"update" needs an id and a text or topic.');
          // @step memory.updated: The model rewrites an entry of its memory.
          const entry = await store.update(id, { text: text || undefined, topic });
          if (!entry) return failure(`No entry has the id ${id}.`);
          record(writeEvent("updated", entry, by));
          await options.afterWrite();
          return success(`Updated [${entry.id}].${redactedNote(text, entry.text)}`);
        }
        case "forget": {
          // @step memory.forgotten: The model forgets an entry of its memory.
          const entry = id ? await store.forget(id) : null;
          if (!entry) return failure(id ? `No entry has the id ${id}.` : '"forget" needs an id.');
          record(writeEvent("forgotten", entry, by));
          return success(`Forgot [${entry.id}].`);
        }
        case "read": {
          if (!topic) return failure('"read" needs a topic.');
          return success(store.topicText(topic) ?? `Nothing is remembered under ${topic}.`);
        }
        default:
          return failure('action must be "add", "update", "forget" or "read".');
      }
    },
  };
}

/** Why a text holding something shaped like a secret is not saved, and what to save instead. */
function refusedSecret(text: string): string | null {
  const kinds = secretKinds(text);
  if (kinds.length === 0) return null;
  return `Not saved: the text holds what looks like ${kinds.join(" and ")}, and the memory is read into every later session. Never save a secret; save where it is kept or how to get it instead (for example "the deploy token is in the DEPLOY_TOKEN variable of CI"), without the secret itself.`;
}

function redactedNote(asked: string, stored: string): string {
  return asked && asked !== stored
    ? " A secret in it was replaced by [redacted:...] before it was saved: never save secrets."
    : "";
}
