// A task board on disk: one JSON file per task in the board's own directory under agentloop's
// state directory, as Claude Code keeps one file per task under ~/.claude/tasks/. Every change
// reads the tasks, applies the rules and writes what changed while holding the board's lock,
// so two processes adding tasks at once lose none; each file is replaced whole, so a reader
// without the lock sees every task as it was or as it is.

import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import { stateDirectory } from "../core/state-directory.js";
import { BOARD_ID } from "./board-id.js";
import { withBoardLock } from "./board-lock.js";
import {
  type BoardTask,
  type NewTask,
  newTask,
  type Ruled,
  TASK_STATUSES,
  type TaskChange,
  type Updated,
  updateTask,
} from "./board-rules.js";

export interface Board {
  /** Its name: the session's id for a lone session. */
  readonly id: string;
  readonly directory: string;
  /** Every task, by id, read now without the lock (for /board and a compaction's restatement). */
  peek(): BoardTask[];
  /** Every task, read under the lock. */
  tasks(): Promise<BoardTask[]>;
  create(input: NewTask): Promise<Ruled<BoardTask>>;
  /** Changes task `id` on behalf of the agent named `by`. */
  update(id: string, change: TaskChange, by: string): Promise<Ruled<Updated>>;
}

/** The directory of board `id` (a session id): `<state directory>/tasks/<id>`. */
export function boardDirectory(id: string, env: NodeJS.ProcessEnv): string {
  if (!BOARD_ID.test(id)) {
    throw new Error(`A board's id is a plain name, not ${JSON.stringify(id)}.`);
  }
  return join(stateDirectory(env), "tasks", id);
}

export function openBoard(id: string, env: NodeJS.ProcessEnv): Board {
  const directory = boardDirectory(id, env);
  // This process's calls take the lock in the order they were made: a model that creates task 1
  // and task 2 waiting for it in one turn gets them in that order, though the calls run at once.
  let turn: Promise<unknown> = Promise.resolve();
  const locked = <T>(work: () => Promise<T>): Promise<T> => {
    const mine = turn.then(() => {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      return withBoardLock(directory, work);
    });
    turn = mine.catch(() => {});
    return mine;
  };
  const write = (task: BoardTask) =>
    writeFileAtomically(join(directory, `${task.id}.json`), `${JSON.stringify(task, null, 2)}\n`);
  const peek = () => readTasks(directory);
  return {
    id,
    directory,
    peek,
    tasks: () => locked(async () => peek()),
    create: (input) =>
      locked(async () => {
        const made = newTask(peek(), input, highestFileId(directory));
        if (made.ok) await write(made.value);
        return made;
      }),
    update: (taskId, change, by) =>
      locked(async () => {
        const updated = updateTask(peek(), taskId, change, by);
        if (updated.ok) {
          for (const task of updated.value.changed) await write(task);
        }
        return updated;
      }),
  };
}

/** The names of the board's task files: `1.json`, `2.json`, ... */
function taskFiles(directory: string): string[] {
  try {
    return readdirSync(directory).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
}

/** A new task never takes the name of a file it could not read: that file stays as it is. */
function highestFileId(directory: string): number {
  return taskFiles(directory).reduce((top, name) => Math.max(top, Number.parseInt(name, 10)), 0);
}

function readTasks(directory: string): BoardTask[] {
  const tasks = taskFiles(directory).flatMap((name) => {
    const task = parseTask(readOrEmpty(join(directory, name)));
    return task ? [task] : [];
  });
  return tasks.sort((a, b) => Number(a.id) - Number(b.id));
}

/** A file's text, or "" when it cannot be read (then it is skipped as a task file that is not one). */
function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** A task file as written; null for one that is not (edited by hand, from another version). */
function parseTask(text: string): BoardTask | null {
  let value: Partial<BoardTask>;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const fine =
    typeof value.id === "string" &&
    typeof value.subject === "string" &&
    typeof value.description === "string" &&
    TASK_STATUSES.includes(value.status as BoardTask["status"]) &&
    (value.owner === null || typeof value.owner === "string") &&
    Array.isArray(value.blocked_by);
  return fine ? (value as BoardTask) : null;
}
