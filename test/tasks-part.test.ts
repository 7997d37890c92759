// The task board's part (src/tasks/part.ts, start.ts): offered only when chosen or turned on,
// an event for each change, the board restated beside a compaction's summary, and /board.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import type { LoopEvent } from "../src/core/events.js";
import type { PartHost, SessionPart } from "../src/core/part.js";
import type { Tool } from "../src/core/tool.js";
import { CHAPTER as TASKS } from "../src/tasks/chapter.js";
import { startTasksPart } from "../src/tasks/start.js";
import { chooseTools } from "../src/tools/tool-set.js";

function where(settings?: Record<string, unknown>, extra: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "agentloop-tasks-part-"));
  const workspace = join(root, "workspace");
  mkdirSync(join(root, "config", "agentloop"), { recursive: true });
  mkdirSync(workspace);
  if (settings) {
    writeFileSync(join(root, "config", "agentloop", "settings.json"), JSON.stringify(settings));
  }
  const env = {
    HOME: root,
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_STATE_HOME: join(root, "state"),
    ...extra,
  };
  return { workspace, env, sessions: join(root, "state", "agentloop", "sessions") };
}

const offered = (part: SessionPart | null) =>
  part?.tools?.({ mode: "ask", forChild: false }).map((tool) => tool.name) ?? [];

/** The part attached to a session whose directory is `sessions/<id>`. */
function attached(part: SessionPart, sessions: string, id: string): void {
  part.attach?.({ directory: () => join(sessions, id) } as PartHost);
}

async function call(part: SessionPart, name: string, input: Record<string, unknown>) {
  const tool = part.tools?.({ mode: "ask", forChild: false }).find((each) => each.name === name);
  if (!tool) throw new Error(`${name} is not offered`);
  const signal = new AbortController().signal;
  const output = await (tool as Tool).run(input, { signal });
  const end = { type: "tool_end", call: {}, result: {}, durationMs: 1 } as unknown as LoopEvent;
  return { output, events: part.eventsAfter?.(end) ?? [] };
}

describe("the task board's part", () => {
  it("names its four tools once, in its chapter: --tools takes them, no default set holds them", async () => {
    const chapters = SESSION_PARTS;
    for (const localModel of [false, true]) {
      const choice = await chooseTools({ flag: undefined, localModel, chapters, ...where() });
      expect(choice.partTools.filter((name) => name.startsWith("task_"))).toEqual([]);
      expect(choice.names.filter((name) => name.startsWith("task_"))).toEqual([]);
    }
    const named = await chooseTools({ flag: ["bash", ...TASKS.tools], chapters, ...where() });
    expect(named.partTools).toEqual([...TASKS.tools]);
  });

  it("is not in a session that neither names its tools nor turns it on", async () => {
    const { workspace, env } = where();
    expect(await startTasksPart({ tools: ["bash", "read"], workspace, env })).toBeNull();
  });

  it('offers the tools named, or all four with "tasks": true, and none to a subagent', async () => {
    const named = where();
    const some = await startTasksPart({ tools: ["bash", "task_list"], ...named });
    expect(offered(some)).toEqual(["task_list"]);
    const on = where({ tasks: true });
    const all = await startTasksPart({ tools: ["bash"], ...on });
    expect(offered(all)).toEqual([...TASKS.tools]);
    expect(all?.tools?.({ mode: "ask", forChild: true })).toEqual([]);
  });

  it("says in one sentence what is wrong with its setting or its shared board's name", async () => {
    await expect(startTasksPart({ tools: [], ...where({ tasks: "yes" }) })).rejects.toThrow(
      /"tasks" in .*settings.json must be true or false/,
    );
    const badName = where({ tasks: true }, { AGENTLOOP_TASK_LIST_ID: "../elsewhere" });
    await expect(startTasksPart({ tools: [], ...badName })).rejects.toThrow(
      /AGENTLOOP_TASK_LIST_ID must be a plain name/,
    );
  });

  it("tells each change as an event, restates the board and shows it with /board", async () => {
    const { sessions, ...rest } = where({ tasks: true });
    const part = (await startTasksPart({ tools: [], ...rest })) as SessionPart;
    attached(part, sessions, "s-1");
    expect(part.restated?.()).toBeNull();

    const created = await call(part, "task_create", { subject: "Schema", description: "d" });
    expect(created.output).toEqual({ content: "Created #1 [pending] Schema.", isError: false });
    expect(created.events).toEqual([
      expect.objectContaining({
        part: "tasks",
        name: "task_created",
        line: "Board: added #1 [pending] Schema",
      }),
    ]);
    await call(part, "task_create", { subject: "Deploy", description: "", blocked_by: ["1"] });
    const done = await call(part, "task_update", { id: "1", status: "completed" });
    expect(done.output.content).toBe(
      "Updated #1 [completed] Schema (owner: lead). Unblocked: task 2 (Deploy).",
    );
    expect(done.events[0]).toMatchObject({
      name: "task_updated",
      line: "Board: #1 [completed] Schema (owner: lead); unblocked #2",
      data: { board: "s-1", unblocked: ["2"] },
    });

    expect(part.restated?.()).toBe(
      "The task board (2 tasks: 1 completed, 1 pending; task_list shows it as it is now):\n" +
        "#1 [completed] Schema (owner: lead)\n#2 [pending] Deploy",
    );
    const board = await part.commands?.find((command) => command.name === "/board")?.run("");
    expect(board).toContain("Task board s-1 (2 tasks: 1 completed, 1 pending), kept in ");
    expect(board).toContain("  #2 [pending] Deploy");
  });

  it("shares the board AGENTLOOP_TASK_LIST_ID names between sessions", async () => {
    const { sessions, ...rest } = where({ tasks: true }, { AGENTLOOP_TASK_LIST_ID: "team" });
    const first = (await startTasksPart({ tools: [], ...rest })) as SessionPart;
    const second = (await startTasksPart({ tools: [], ...rest })) as SessionPart;
    attached(first, sessions, "s-1");
    attached(second, sessions, "s-2");
    await call(first, "task_create", { subject: "Shared", description: "" });
    expect((await call(second, "task_list", {})).output.content).toBe("#1 [pending] Shared");
  });
});
