// Static sharding for running one batch on many machines without a coordinator: shard I of N
// takes every Nth task of the file, starting at the Ith (from 0). Any two shards are disjoint
// and all N together are the whole file, as long as every machine reads the same file.
// Kubernetes Indexed Jobs give each pod its index in JOB_COMPLETION_INDEX.

import { ConfigError } from "../core/errors.js";

export interface Shard {
  index: number;
  count: number;
}

/** The variable a Kubernetes Indexed Job sets in each pod. */
export const INDEX_VARIABLE = "JOB_COMPLETION_INDEX";

/** "I/N", or "N" with I from JOB_COMPLETION_INDEX. */
export function shardFrom(text: string, env: NodeJS.ProcessEnv): Shard {
  const [first, second] = text.split("/");
  const indexText = second === undefined ? env[INDEX_VARIABLE] : first;
  const countText = second ?? first;
  const count = Number(countText);
  if (!Number.isInteger(count) || count < 1) {
    throw new ConfigError(
      `--shard must be I/N or N with N a whole number of at least 1, got "${text}".`,
    );
  }
  if (indexText === undefined) {
    throw new ConfigError(
      `--shard ${text} takes its index from ${INDEX_VARIABLE}, which is not set.`,
    );
  }
  const index = Number(indexText);
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new ConfigError(
      `The shard index must be a whole number from 0 to ${count - 1}, got "${indexText}".`,
    );
  }
  return { index, count };
}

export function tasksOfShard<T>(tasks: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...tasks];
  return tasks.filter((_, position) => position % shard.count === shard.index);
}
