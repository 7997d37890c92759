// A fake model for batch runs, where many agents talk to one server at once: each request is
// answered from its own conversation, not from a shared script. A task's prompt says what to
// do ("task ID: run: COMMAND"): the model runs COMMAND with bash, then answers "done ID".
// The command OVERLOADED makes the API answer 529 to that task, every time.

import {
  type FakeAnthropic,
  overloaded,
  type RecordedBody,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "./fake-anthropic-server.js";

export interface BatchModel {
  fake: FakeAnthropic;
  url: string;
  /** Requests made for task `id` so far. */
  requestsFor(id: string): number;
  close(): Promise<void>;
}

export const OVERLOADED = "OVERLOADED";

const PROMPT = /^task (\S+): run: ([\s\S]*)$/;

export function batchPrompt(id: string, command: string): string {
  return `task ${id}: run: ${command}`;
}

/** `latencyMs`: how long the model thinks before each reply. */
export async function startBatchModel({ latencyMs = 0 } = {}): Promise<BatchModel> {
  const fake = await startFakeAnthropic();
  fake.script([], {
    intercept: (body) => {
      const [, id, command] = PROMPT.exec(firstPrompt(body)) ?? [];
      if (!id || command === undefined) return reply(text("I do not know this task."));
      if (command === OVERLOADED) return overloaded({ "retry-after": "0" });
      const answer =
        body.messages.length > 1
          ? reply(text(`done ${id}`))
          : reply(toolUse(`call_${id}`, "bash", { command }));
      return { ...answer, pauseMs: latencyMs };
    },
  });
  return {
    fake,
    url: fake.url,
    requestsFor: (id) =>
      fake.requests.filter((request) => firstPrompt(request.body).startsWith(`task ${id}: `))
        .length,
    close: () => fake.close(),
  };
}

function firstPrompt(body: RecordedBody): string {
  const first = body.messages[0];
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return first.content
    .flatMap((block) => (block.type === "text" ? [String(block.text)] : []))
    .join("\n");
}
