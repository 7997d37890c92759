// The task board's store (src/tasks/): its rules on blockers and owners, its files in the state
// directory, and its lock, which keeps concurrent writers from losing tasks and recovers from a
// writer that died holding it.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { boardDirectory, openBoard } from "../src/tasks/board.js";
import { withBoardLock } from "../src/tasks/board-lock.js";
import { type BoardTask, newTask, updateTask } from "../src/tasks/board-rules.js";

const stateHome = () => ({ XDG_STATE_HOME: mkdtempSync(join(tmpdir(), "agentloop-board-")) });

function task(id: string, fields: Partial<BoardTask> = {}): BoardTask {
  return {
    id,
    subject: `Task ${id}`,
    description: "",
    status: "pending",
    owner: null,
    blocked_by: [],
    ...fields,
  };
}

function expectRefused(outcome: { ok: boolean; error?: string }, words: RegExp) {
  expect(outcome.ok).toBe(false);
  expect(outcome.error).toMatch(words);
}

describe("the board's rules", () => {
  const a = task("1", { subject: "Write the schema" });
  const b = task("2", { subject: "Deploy", blocked_by: ["1"] });

  it("numbers a new task after the highest id and keeps only open blockers", () => {
    const done = task("3", { status: "completed" });
    const made = newTask([a, b, done], {
      subject: " Test ",
      description: "d",
      blocked_by: ["1", "3", "1"],
    });
    expect(made).toEqual({
      ok: true,
      value: { ...task("4", { subject: "Test", description: "d" }), blocked_by: ["1"] },
    });
  });

  it("refuses a blocker that does not exist, the task itself, or a circle", () => {
    expectRefused(newTask([a], { subject: "x", description: "", blocked_by: ["9"] }), /no task 9/);
    expectRefused(updateTask([a, b], "1", { blocked_by: ["1"] }, "lead"), /cannot wait for itself/);
    expectRefused(updateTask([a, b], "1", { blocked_by: ["2"] }, "lead"), /wait for each other/);
    expectRefused(newTask([a], { subject: "  ", description: "" }), /needs a subject/);
  });

  it("does not let a task that waits for an open task start or be completed, naming the blocker", () => {
    for (const status of ["in_progress", "completed"] as const) {
      const refused = updateTask([a, b], "2", { status }, "lead");
      expectRefused(refused, /Task 2 cannot .*task 1 \(Write the schema, pending\)/);
    }
  });

  it("claims an unowned task for whoever starts it", () => {
    const started = updateTask([a, b], "1", { status: "in_progress" }, "lead");
    expect(started.ok && started.value.task).toMatchObject({
      status: "in_progress",
      owner: "lead",
    });
  });

  it("lets only the owner complete a task", () => {
    const alices = task("1", { owner: "alice", status: "in_progress" });
    expectRefused(
      updateTask([alices, b], "1", { status: "completed" }, "lead"),
      /only alice completes it/,
    );
    const given = updateTask([alices, b], "1", { owner: "lead", status: "completed" }, "lead");
    expect(given.ok).toBe(true);
  });

  it("completing a task clears it from the lists that waited for it and says which it unblocked", () => {
    const c = task("3", { blocked_by: ["1", "2"] });
    const completed = updateTask([a, b, c], "1", { status: "completed" }, "lead");
    if (!completed.ok) throw new Error(completed.error);
    expect(completed.value.unblocked.map(({ id }) => id)).toEqual(["2"]);
    expect(completed.value.changed).toEqual([
      { ...a, status: "completed", owner: "lead" },
      { ...b, blocked_by: [] },
      { ...c, blocked_by: ["2"] },
    ]);
  });

  it("answers an unknown task with an error naming task_list", () => {
    expectRefused(updateTask([a], "7", { status: "completed" }, "lead"), /no task 7.*task_list/);
  });
});

describe("the board on disk", () => {
  it("keeps one file per task under the state directory, read back by another opening", async () => {
    const env = stateHome();
    const board = openBoard("session-1", env);
    await board.create({ subject: "Write the schema", description: "" });
    await board.create({ subject: "Deploy", description: "", blocked_by: ["1"] });
    expect(board.directory).toBe(join(env.XDG_STATE_HOME, "agentloop", "tasks", "session-1"));
    expect(readdirSync(board.directory).sort()).toEqual(["1.json", "2.json"]);

    const done = await openBoard("session-1", env).update("1", { status: "completed" }, "lead");
    expect(done.ok && done.value.unblocked.map(({ id }) => id)).toEqual(["2"]);
    expect((await board.tasks()).map(({ status, blocked_by }) => [status, blocked_by])).toEqual([
      ["completed", []],
      ["pending", []],
    ]);
    expect(openBoard("session-2", env).peek()).toEqual([]);
  });

  it("applies the calls one process makes at once in the order it made them", async () => {
    const board = openBoard("in-order", stateHome());
    const chain = Array.from({ length: 20 }, (_, index) =>
      board.create({
        subject: `Step ${index + 1}`,
        description: "",
        blocked_by: index === 0 ? [] : [String(index)],
      }),
    );
    const made = await Promise.all(chain);
    expect(made.map((outcome) => outcome.ok && outcome.value.blocked_by)).toEqual(
      Array.from({ length: 20 }, (_, index) => (index === 0 ? [] : [String(index)])),
    );
  });

  it("skips a task file it cannot read, and never writes a new task over it", async () => {
    const env = stateHome();
    const board = openBoard("damaged", env);
    mkdirSync(board.directory, { recursive: true });
    writeFileSync(join(board.directory, "1.json"), "{ half a task");
    const made = await board.create({ subject: "Next", description: "" });
    expect(made.ok && made.value.id).toBe("2");
    expect(readFileSync(join(board.directory, "1.json"), "utf8")).toBe("{ half a task");
    expect(board.peek().map(({ id }) => id)).toEqual(["2"]);
  });

  it("refuses a board name that is not one plain directory name", () => {
    for (const id of ["..", "a/b", ".hidden", ""]) {
      expect(() => boardDirectory(id, stateHome())).toThrow(/plain name/);
    }
  });

  it("loses no task when many writers create at once", async () => {
    const env = stateHome();
    const writers = Array.from({ length: 40 }, (_, index) =>
      openBoard("busy", env).create({ subject: `Task ${index}`, description: "" }),
    );
    const made = await Promise.all(writers);
    const ids = made.map((outcome) => (outcome.ok ? Number(outcome.value.id) : 0));
    expect(ids.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(openBoard("busy", env).peek()).toHaveLength(40);
  });
});

describe("the board's lock", () => {
  it("makes a second writer wait while the first holds it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-lock-"));
    const order: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = withBoardLock(directory, async () => {
      order.push("first in");
      await held;
      order.push("first out");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = withBoardLock(directory, async () => {
      order.push("second in");
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual(["first in"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first in", "first out", "second in"]);
    expect(existsSync(join(directory, ".lock"))).toBe(false);
  });

  it("takes over a lock left by a process that died holding it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-lock-"));
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    mkdirSync(join(directory, ".lock"));
    writeFileSync(join(directory, ".lock", "owner"), gone.stdout.toString());
    const ran = await withBoardLock(directory, async () => "ran");
    expect(ran).toBe("ran");
    expect(readdirSync(directory)).toEqual([]);
  });

  it("lets go of the lock when the work throws", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-lock-"));
    await expect(
      withBoardLock(directory, async () => {
        throw new Error("disk full");
      }),
    ).rejects.toThrow("disk full");
    expect(readdirSync(directory)).toEqual([]);
  });
});
