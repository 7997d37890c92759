// Where `agentloop batch enqueue`, `worker` and `status` meet: a BullMQ queue on a Redis
// server. BullMQ is an optional dependency, loaded here on first use, so the rest of agentloop
// neither needs it installed nor loads it. The jobs' shapes are here too, as both sides read them.

import type { Queue, RedisOptions } from "bullmq";
import { ConfigError } from "../core/errors.js";
import type { QueuePlace } from "./command-line.js";
import type { Task } from "./task.js";
import type { TaskResult } from "./task-result.js";

/** A job's data: the task, and where its relative `repo` path starts (the task file's folder). */
export interface JobData {
  task: Task;
  repoBase: string;
}

/** What an attempt came to, as the worker's OUT holds it; `status --out` copies it into its OUT. */
export interface JobOutcome {
  result: TaskResult;
  patch: string;
}

export type BullMQ = typeof import("bullmq");
export type TaskQueue = Queue<JobData, JobOutcome>;

export async function loadBullMQ(): Promise<BullMQ> {
  try {
    return await import("bullmq");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ConfigError(
      "The Redis queue needs the optional package bullmq, which is not installed: run npm install bullmq.",
    );
  }
}

/** The connection options of `redis://[USER:PASSWORD@]HOST[:PORT][/DB]` (rediss: for TLS). */
export function redisOptions(url: string): RedisOptions {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Reported below, with the others.
  }
  if (!parsed || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")) {
    throw new ConfigError(`--queue must be a URL like redis://HOST:6379, got "${url}".`);
  }
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) {
    throw new ConfigError(`The database in --queue must be a number, got "${db}".`);
  }
  return {
    host: parsed.hostname || "localhost",
    port: Number(parsed.port || 6379),
    db: Number(db || 0),
    username: decodeURIComponent(parsed.username) || undefined,
    password: decodeURIComponent(parsed.password) || undefined,
    tls: parsed.protocol === "rediss:" ? {} : undefined,
  };
}

/**
 * The queue, once Redis has answered. A server that cannot be reached at first is one error
 * (a wrong URL would otherwise be retried forever); once connected, Redis going away for a
 * while is retried, as a worker running for hours should.
 */
export async function openQueue(bull: BullMQ, place: QueuePlace): Promise<TaskQueue> {
  let connected = false;
  const queue: TaskQueue = new bull.Queue(place.queueName, {
    connection: {
      ...redisOptions(place.queue),
      retryStrategy: (times: number) => (connected ? Math.min(times * 200, 2000) : null),
    },
  });
  // Reported once, by waitUntilReady below; later ones fail the command that met them.
  queue.on("error", () => undefined);
  try {
    await queue.waitUntilReady();
  } catch (error) {
    await queue.close().catch(() => undefined);
    throw new ConfigError(
      `Cannot reach Redis at ${withoutPassword(place.queue)}: ${(error as Error).message}.`,
    );
  }
  connected = true;
  return queue;
}

export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
