// The board's rules, on the tasks as read under the lock: what a new task looks like, and what
// an update may change. A task that waits for open tasks cannot start or be completed; only its
// owner completes it; completing a task takes it off every list of blockers, so `blocked_by`
// names open tasks only. A change that breaks a rule changes nothing and says why.

export type TaskStatus = "pending" | "in_progress" | "completed";
export const TASK_STATUSES: readonly TaskStatus[] = ["pending", "in_progress", "completed"];

export interface BoardTask {
  /** "1", "2", ...: numbers as strings, as Claude Code's task ids are. */
  id: string;
  subject: string;
  description: string;
  status: TaskStatus;
  /** Who works on it: the name of the agent that claimed it, or null while no one has. */
  owner: string | null;
  /** The open tasks it waits for. */
  blocked_by: string[];
}

export interface NewTask {
  subject: string;
  description: string;
  blocked_by?: string[];
}

export interface TaskChange {
  status?: TaskStatus;
  /** "" takes the owner off. */
  owner?: string;
  /** The whole list of tasks it waits for (not an addition to it). */
  blocked_by?: string[];
}

export type Ruled<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Updated {
  task: BoardTask;
  /** Every task this update changed, itself included. */
  changed: BoardTask[];
  /** The tasks that waited for this one alone and may start now. */
  unblocked: BoardTask[];
}

const refused = <T>(error: string): Ruled<T> => ({ ok: false, error });

/**
 * The task `input` makes on a board holding `tasks`, numbered after them and after `taken` (the
 * highest id of a file on the board, whether or not it could be read as a task).
 */
export function newTask(tasks: readonly BoardTask[], input: NewTask, taken = 0): Ruled<BoardTask> {
  if (input.subject.trim() === "") return refused("A task needs a subject, such as “Run tests”.");
  const id = String(tasks.reduce((top, task) => Math.max(top, Number(task.id)), taken) + 1);
  const blockers = openBlockers(tasks, id, input.blocked_by ?? []);
  if (!blockers.ok) return blockers;
  const task: BoardTask = {
    id,
    subject: input.subject.trim(),
    description: input.description,
    status: "pending",
    owner: null,
    blocked_by: blockers.value,
  };
  return { ok: true, value: task };
}

/** What `change`, asked for by the agent named `by`, does to task `id`. */
export function updateTask(
  tasks: readonly BoardTask[],
  id: string,
  change: TaskChange,
  by: string,
): Ruled<Updated> {
  const found = tasks.find((task) => task.id === id);
  if (!found) return refused(`There is no task ${id} on the board; task_list shows its tasks.`);
  const task = { ...found, blocked_by: [...found.blocked_by] };
  if (change.blocked_by !== undefined) {
    const blockers = openBlockers(tasks, id, change.blocked_by);
    if (!blockers.ok) return blockers;
    task.blocked_by = blockers.value;
  }
  if (change.owner !== undefined) task.owner = change.owner.trim() || null;
  const status = change.status;
  if (status === undefined || status === task.status || status === "pending") {
    if (status) task.status = status;
    return { ok: true, value: { task, changed: [task], unblocked: [] } };
  }
  if (task.blocked_by.length > 0) {
    const waits = task.blocked_by.map((blocker) => describe(tasks, blocker)).join(", ");
    const verb = status === "completed" ? "be completed" : "start";
    return refused(
      `Task ${id} cannot ${verb}: it waits for ${waits}. It can once ${task.blocked_by.length === 1 ? "that task is" : "those are"} completed.`,
    );
  }
  // Starting or completing an unclaimed task claims it for whoever does it.
  task.owner ??= by;
  if (task.owner !== by) {
    const verb = status === "completed" ? "completes" : "starts";
    return refused(
      `Task ${id} belongs to ${task.owner}: only ${task.owner} ${verb} it (or give it to ${by} first with owner).`,
    );
  }
  task.status = status;
  if (status === "in_progress")
    return { ok: true, value: { task, changed: [task], unblocked: [] } };
  // Completing takes it off the lists of the tasks that waited for it.
  const waiting = tasks.filter((other) => other.blocked_by.includes(id));
  const cleared = waiting.map((other) => ({
    ...other,
    blocked_by: other.blocked_by.filter((blocker) => blocker !== id),
  }));
  const unblocked = cleared.filter((other) => other.blocked_by.length === 0);
  return { ok: true, value: { task, changed: [task, ...cleared], unblocked } };
}

/** The blockers named for task `id`, known and not waiting for `id` in turn; completed ones dropped. */
function openBlockers(
  tasks: readonly BoardTask[],
  id: string,
  named: readonly string[],
): Ruled<string[]> {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const open: string[] = [];
  for (const blocker of new Set(named.map(String))) {
    const task = byId.get(blocker);
    if (blocker === id) return refused(`Task ${id} cannot wait for itself.`);
    if (!task) return refused(`There is no task ${blocker} on the board to wait for.`);
    if (waitsFor(byId, blocker, id)) {
      return refused(
        `Task ${blocker} already waits for task ${id}: they would wait for each other.`,
      );
    }
    if (task.status !== "completed") open.push(blocker);
  }
  return { ok: true, value: open };
}

/** Whether task `from` waits, directly or through others, for task `target`. */
function waitsFor(byId: Map<string, BoardTask>, from: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const current = byId.get(stack.pop() as string);
    if (!current || seen.has(current.id)) continue;
    seen.add(current.id);
    if (current.blocked_by.includes(target)) return true;
    stack.push(...current.blocked_by);
  }
  return false;
}

function describe(tasks: readonly BoardTask[], id: string): string {
  const task = tasks.find((each) => each.id === id);
  return task ? `task ${id} (${task.subject}, ${task.status.replace("_", " ")})` : `task ${id}`;
}
