// A part written outside src/, as a library user writes one, joins a session through the one
// seam (src/core/part.ts) and the list the session is assembled from: its tool is offered and
// run, its note goes beside the prompt, its event reaches stream-json and the session file, and
// its text is restated beside a compaction's summary. Real HTTP against the fake Anthropic server.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { assembleSession } from "../src/assembly/assemble.js";
import { type PartEntry, SESSION_PARTS } from "../src/assembly/parts.js";
import type { SessionIO } from "../src/assembly/session-io.js";
import type { SessionOptions } from "../src/assembly/session-options.js";
import { runOneShot } from "../src/command-line/one-shot.js";
import type { LoopEvent } from "../src/core/events.js";
import type { PartHost, QueuedOutcome, SessionPart } from "../src/core/part.js";
import type { Tool } from "../src/core/tool.js";
import { freshSandbox, onlySession, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { TEST_SERVER } from "./support/mcp-servers.js";

/** A part that stamps: a tool, a note beside each prompt, an event per stamp, a restated text. */
function stampPart(): SessionPart {
  const stamped: string[] = [];
  let pending: LoopEvent[] = [];
  const stamp: Tool = {
    name: "stamp",
    description: "Stamp a label.",
    inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    async run(input) {
      stamped.push(String(input.label));
      return { content: `stamped ${input.label}`, isError: false };
    },
  };
  const tools = [stamp];
  return {
    name: "stamp",
    tools: (offer) => (offer.forChild ? [] : tools),
    promptNotes: () => [{ text: "[stamp] the stamp pad is inked" }],
    eventsAfter(event) {
      if (event.type === "tool_end" && event.call.name === "stamp") {
        const label = stamped.at(-1) ?? "";
        pending = [{ type: "part", part: "stamp", name: "stamped", line: `stamped ${label}` }];
      }
      const out = pending;
      pending = [];
      return out;
    },
    restated: () => (stamped.length > 0 ? `[stamp] stamped so far: ${stamped.join(", ")}` : null),
  };
}

const entries: PartEntry[] = [...SESSION_PARTS, { name: "stamp", start: async () => stampPart() }];

/**
 * A part that queues "the watch ended" after its first tool result; with `watching`, it has work
 * under way until the watch ends 300 ms after that.
 */
function watchPart(watching: boolean) {
  let host: PartHost | undefined;
  let working = watching;
  let queued = false;
  const outcomes: QueuedOutcome[] = [];
  const part: SessionPart = {
    name: "watch",
    attach: (given) => {
      host = given;
    },
    workUnderWay: () => working,
    eventsAfter(event) {
      if (event.type !== "tool_end" || queued) return [];
      queued = true;
      setTimeout(() => {
        host?.queuePrompt({ text: "the watch ended" }).then((outcome) => outcomes.push(outcome));
        working = false;
      }, 300);
      return [];
    },
  };
  return { part, outcomes };
}

async function runWatched(watching: boolean) {
  const model = await startFakeModel("anthropic");
  onTestFinished(() => model.close());
  model.script([
    reply(toolUse("t1", "stamp", { label: "watch" })),
    reply(text("Started the watch.")),
    reply(text("The watch is over.")),
  ]);
  const sandbox = freshSandbox();
  stubEnv({ ...sandbox.env, ...model.env() });
  const watch = watchPart(watching);
  const { session, controls } = await assembleSession(sessionOptions(sandbox.workspace), headless, [
    ...entries,
    { name: "watch", start: async () => watch.part },
  ]);
  const stdout = collect();
  const code = await runOneShot({
    session,
    controls,
    prompt: "start the watch",
    outputFormat: "json",
    stdout,
    stderr: collect(),
  });
  // A prompt not run is said at once; give a late one its time.
  await new Promise((done) => setTimeout(done, watching ? 0 : 400));
  return { code, result: JSON.parse(stdout.text()), outcomes: watch.outcomes, model, sandbox };
}

function sessionOptions(cwd: string): SessionOptions {
  return {
    cwd,
    model: undefined,
    provider: undefined,
    baseURL: undefined,
    api: undefined,
    maxTurns: 10,
    maxCost: undefined,
    effort: undefined,
    thinking: undefined,
    contextWindow: undefined,
    autoCompact: true,
    tools: undefined,
    mcpConfigFiles: [],
    resume: undefined,
    permissionMode: "yolo",
    allowNetwork: false,
  };
}

const headless: SessionIO = {
  notice: () => undefined,
  repaired: () => undefined,
  progress: process.stderr,
};

function collect() {
  let written = "";
  return {
    write(chunk: string) {
      written += chunk;
      return true;
    },
    text: () => written,
  };
}

/** One prompt in one-shot mode with `--output-format stream-json`: its code and printed events. */
async function runStreamJson(cwd: string, entries: readonly PartEntry[], prompt: string) {
  const { session, controls } = await assembleSession(sessionOptions(cwd), headless, entries);
  const stdout = collect();
  const outputFormat = "stream-json";
  const code = await runOneShot({
    session,
    controls,
    prompt,
    outputFormat,
    stdout,
    stderr: collect(),
  });
  const printed: LoopEvent[] = stdout
    .text()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  return { code, printed };
}

afterEach(() => vi.unstubAllEnvs());

/** The session reads its settings and the model's address from the environment. */
function stubEnv(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

/**
 * An entry that adds a kit of components beside the person's own, as plugins do, through the
 * same seam: a skill, an agent, a PreToolUse hook that refuses `rm` and a stdio MCP server.
 */
function kitEntry(root: string): PartEntry {
  const put = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  put("skills/review/SKILL.md", "---\ndescription: Review the kit's way\n---\nRead it twice.");
  put("agents/checker.md", "---\nname: checker\ndescription: Checks the kit\n---\nCheck.");
  put(
    "guard.sh",
    'if grep -q \'"command":"rm \'; then echo "refused in $KIT_ROOT" >&2; exit 2; fi',
  );
  const guard = { type: "command", command: `bash "\${KIT_ROOT}/guard.sh"` };
  return {
    name: "kit",
    componentSources: async () => ({
      sources: [
        {
          prefix: "kit:",
          root,
          skills: [join(root, "skills")],
          commands: [],
          agents: [join(root, "agents")],
          hooks: [
            {
              file: join(root, "hooks.json"),
              settings: { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard] }] } },
            },
          ],
          mcpServers: [
            {
              file: join(root, "mcp.json"),
              servers: { kit_tools: { command: process.execPath, args: [TEST_SERVER] } },
            },
          ],
          variables: () => ({ KIT_ROOT: root }),
        },
      ],
      problems: [],
    }),
    start: async () => null,
  };
}

describe("a part added from outside src/", () => {
  it("adds skills, agents, hooks and MCP servers beside the person's own through componentSources, as plugins do", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([
        reply(toolUse("t1", "bash", { command: "rm -f nothing" })),
        reply(text("Ok.")),
      ]);
      const sandbox = freshSandbox();
      stubEnv({ ...sandbox.env, ...model.env() });
      const root = join(sandbox.home, "..", "kit");
      const entries = [...SESSION_PARTS, kitEntry(root)];
      const { code, printed } = await runStreamJson(sandbox.workspace, entries, "clean up");

      expect(code).toBe(0);
      const first = JSON.parse(model.requests()[0]?.body ?? "{}");
      expect(JSON.stringify(first.system)).toContain("kit:review: Review the kit's way");
      const tools: { name: string; description: string }[] = first.tools;
      expect(tools.find((tool) => tool.name === "agent")?.description).toContain(
        "kit:checker: Checks the kit",
      );
      expect(tools.map((tool) => tool.name)).toContain("mcp__kit_tools__echo");
      const [refused] = printed.flatMap((event) => (event.type === "tool_end" ? [event] : []));
      expect(refused?.result).toMatchObject({ is_error: true });
      expect(JSON.stringify(refused?.result.content)).toContain(`refused in ${root}`);
    } finally {
      await model.close();
    }
  }, 30_000);

  it("offers its tool, adds its note to the prompt, and its event reaches stream-json and the session file", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([reply(toolUse("t1", "stamp", { label: "draft" })), reply(text("Stamped."))]);
      const sandbox = freshSandbox();
      stubEnv({ ...sandbox.env, ...model.env() });
      const { code, printed } = await runStreamJson(sandbox.workspace, entries, "stamp the draft");

      expect(code).toBe(0);
      const first = JSON.parse(model.requests()[0]?.body ?? "{}");
      expect(first.tools.map((tool: { name: string }) => tool.name)).toContain("stamp");
      expect(JSON.stringify(first.messages[0].content)).toContain("[stamp] the stamp pad is inked");
      const stampEvent = { type: "part", part: "stamp", name: "stamped", line: "stamped draft" };
      const toolEnd = printed.findIndex((event) => event.type === "tool_end");
      expect(printed[toolEnd + 1]).toEqual(stampEvent);
      expect(onlySession(sandbox).entries).toContainEqual(expect.objectContaining(stampEvent));
    } finally {
      await model.close();
    }
  }, 30_000);

  it("has its text restated beside a compaction's summary", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script(
        [
          reply(toolUse("t1", "stamp", { label: "final" })),
          reply(text("Stamped.")),
          reply(text("Yes.")),
        ],
        {
          intercept: ({ lastUserText }) =>
            lastUserText.includes("[agentloop] The conversation")
              ? reply(text("A label was stamped."))
              : undefined,
        },
      );
      const sandbox = freshSandbox();
      stubEnv({ ...sandbox.env, ...model.env() });
      const { session } = await assembleSession(
        sessionOptions(sandbox.workspace),
        headless,
        entries,
      );
      const signal = new AbortController().signal;
      for await (const _ of session.runPrompt("stamp the final copy", signal));
      const compacted = session.compact(undefined, signal);
      let step = await compacted.next();
      while (!step.done) step = await compacted.next();
      expect(step.value).toBe("Compacted.");
      for await (const _ of session.runPrompt("was it stamped?", signal));
      await session.close();

      const last = JSON.parse(model.requests().at(-1)?.body ?? "{}");
      expect(JSON.stringify(last.messages[0])).toContain("[stamp] stamped so far: final");
    } finally {
      await model.close();
    }
  }, 30_000);

  it("runs in one-shot mode the prompt it queues while its work is under way, then ends", async () => {
    const { code, result, outcomes, model, sandbox } = await runWatched(true);
    expect(code).toBe(0);
    expect(result.result).toBe("The watch is over.");
    expect(model.requestCount()).toBe(3);
    expect(outcomes).toEqual([
      { ran: true, stop: expect.objectContaining({ reason: "end_turn" }) },
    ]);
    // Each prompt is the first block of its message, the stamp's note beside it.
    const prompts = onlySession(sandbox).messages.flatMap((message) =>
      message.role === "user" &&
      Array.isArray(message.content) &&
      message.content[0]?.type === "text"
        ? [message.content[0].text]
        : [],
    );
    expect(prompts).toEqual(["start the watch", "the watch ended"]);
  }, 30_000);

  it("ends one-shot mode as it would when no work is under way, telling the part its prompt was not run", async () => {
    const { code, result, outcomes, model } = await runWatched(false);
    expect(code).toBe(0);
    expect(result.result).toBe("Started the watch.");
    expect(model.requestCount()).toBe(2);
    expect(outcomes).toEqual([{ ran: false }]);
  }, 30_000);
});
