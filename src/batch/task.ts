// A batch's tasks, one JSON object per line. Every line is checked before anything runs, and
// every mistake is reported with its line number, so a typo on line 480 costs no model calls.

import { readFileSync } from "node:fs";
import { ConfigError } from "../core/errors.js";

export interface Task {
  /** Unique in the file; names the task's folder, so only letters, digits, ".", "_" and "-". */
  id: string;
  prompt: string;
  /** A local path or a git URL; none means an empty workspace. */
  repo?: string;
  /** The commit the workspace starts at (default: the repository's HEAD). */
  base_commit?: string;
  /** A bash command run in the workspace before the agent starts. */
  setup?: string;
  /** Wall-clock limit of one attempt, setup included. */
  timeout_s?: number;
  max_turns?: number;
  max_cost_usd?: number;
  model?: string;
  /** Environment variables for the agent and the commands it runs. */
  env?: Record<string, string>;
  /** Anything; copied into the task's result unchanged. */
  metadata?: unknown;
}

const SAFE_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

type FieldCheck = (value: unknown) => string | null;

const text: FieldCheck = (value) =>
  typeof value === "string" && value.trim() !== "" ? null : "must be a non-empty string";
const positive: FieldCheck = (value) =>
  typeof value === "number" && Number.isFinite(value) && value > 0
    ? null
    : "must be a number above 0";
const wholePositive: FieldCheck = (value) =>
  Number.isInteger(value) && (value as number) > 0 ? null : "must be a whole number above 0";
const stringMap: FieldCheck = (value) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((entry) => typeof entry === "string")
    ? null
    : "must be an object of string values";

const FIELDS: Record<keyof Task, FieldCheck> = {
  id: (value) =>
    typeof value === "string" && SAFE_ID.test(value)
      ? null
      : 'must be 1-128 letters, digits, ".", "_" or "-", not starting with "."',
  prompt: text,
  repo: text,
  base_commit: text,
  setup: text,
  timeout_s: positive,
  max_turns: wholePositive,
  max_cost_usd: positive,
  model: text,
  env: stringMap,
  metadata: () => null,
};

/** The tasks of a JSONL file's text; throws one ConfigError listing every bad line. */
export function parseTasks(content: string, source: string): Task[] {
  const tasks: Task[] = [];
  const problems: string[] = [];
  const lineOf = new Map<string, number>();
  content.split("\n").forEach((line, index) => {
    const number = index + 1;
    if (line.trim() === "") return;
    const checked = checkTask(line);
    if (typeof checked === "string") {
      problems.push(`line ${number}: ${checked}`);
      return;
    }
    const earlier = lineOf.get(checked.id);
    if (earlier !== undefined) {
      problems.push(`line ${number}: id "${checked.id}" is already used on line ${earlier}`);
      return;
    }
    lineOf.set(checked.id, number);
    tasks.push(checked);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, 20);
    if (problems.length > shown.length) shown.push(`... and ${problems.length - 20} more`);
    throw new ConfigError(`${source} has mistakes, nothing was run:\n  ${shown.join("\n  ")}`);
  }
  if (tasks.length === 0) throw new ConfigError(`${source} has no tasks.`);
  return tasks;
}

function checkTask(line: string): Task | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "must be a JSON object";
  }
  const record = value as Record<string, unknown>;
  for (const required of ["id", "prompt"] as const) {
    if (record[required] === undefined) return `"${required}" is missing`;
  }
  for (const [name, field] of Object.entries(record)) {
    const check = FIELDS[name as keyof Task];
    if (!check) return `unknown field "${name}" (put extra data under "metadata")`;
    const problem = check(field);
    if (problem) return `"${name}" ${problem}`;
  }
  return record as unknown as Task;
}

/** Reads and checks a task file; every bad line is reported before anything runs. */
export function readTasks(file: string): Task[] {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read the task file ${file}: ${(error as Error).message}.`);
  }
  return parseTasks(content, file);
}
