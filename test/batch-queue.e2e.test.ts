// `agentloop batch enqueue | worker | status` end to end: a real redis-server, the fake model,
// the built CLI. Each worker is its own process with its own output folder, as on its own
// machine; `status --out` gathers what they did into one folder.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskResult } from "../src/batch/task-result.js";
import { type BatchModel, batchPrompt, startBatchModel } from "./support/batch-model.js";
import { CLI, freshSandbox, runCli } from "./support/cli-harness.js";
import { processesIn } from "./support/processes.js";
import { type RedisServer, startRedisServer } from "./support/redis-server.js";

describe("agentloop batch with a Redis queue", () => {
  let redis: RedisServer;
  let model: BatchModel;
  beforeAll(async () => {
    [redis, model] = await Promise.all([startRedisServer(), startBatchModel()]);
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), model?.close()]);
  });

  /** A folder with a task file, and the queue options: a queue of its own on the server. */
  function setUp(queueName: string, tasks: { id: string; command: string }[]) {
    const sandbox = freshSandbox();
    const root = join(sandbox.home, "..");
    const tasksFile = join(root, "tasks.jsonl");
    writeFileSync(
      tasksFile,
      tasks
        .map(({ id, command }) => JSON.stringify({ id, prompt: batchPrompt(id, command) }))
        .join("\n"),
    );
    const env = {
      ...sandbox.env,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_MAX_RETRIES: "0",
    };
    const queue = ["--queue", redis.url, "--queue-name", queueName];
    const batch = (...args: string[]) => runCli(["batch", ...args], { env, cwd: root });
    /** A worker on a "machine" of its own: its own output and work folders. */
    const startWorker = (name: string): ChildProcess =>
      spawn(
        process.execPath,
        [
          CLI,
          "batch",
          "worker",
          ...queue,
          "--out",
          join(root, name, "out"),
          "--work-dir",
          join(root, name, "work"),
          "--workers",
          "1",
          // A dead worker's task goes to another within seconds, not a minute.
          "--lock-duration",
          "1",
          "--exit-when-empty",
        ],
        { env, cwd: root, stdio: "ignore" },
      );
    return { root, tasksFile, queue, batch, startWorker };
  }

  it("adds each task once, however often the file is enqueued", async () => {
    // Ids BullMQ would not take as job ids, or would confuse with its own keys, work too.
    const tasks = ["e1", "7", "wait", "meta"].map((id) => ({ id, command: "true" }));
    const { tasksFile, queue, batch } = setUp("twice", tasks);

    const first = await batch("enqueue", tasksFile, ...queue);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("Queued 4 tasks");
    const second = await batch("enqueue", tasksFile, ...queue);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("Queued 0 tasks");
    expect(second.stdout).toContain("4 were queued already");

    const status = await batch("status", ...queue);
    expect(status.stdout).toMatch(/waiting +4\n/);
    expect(status.stdout).toContain("4 tasks are not finished yet");
    // Nothing has run yet: not done.
    expect(status.code).toBe(1);
  });

  it("finishes every task exactly once when one of two workers is killed in the middle of a task", async () => {
    const tasks = [
      { id: "slow", command: "sleep 3; echo slow > slow.txt" },
      ...["q1", "q2", "q3"].map((id) => ({ id, command: `echo ${id} > ${id}.txt` })),
    ];
    const { root, tasksFile, queue, batch, startWorker } = setUp("killed", tasks);
    const enqueued = await batch("enqueue", tasksFile, ...queue);
    expect(enqueued.code, enqueued.stderr).toBe(0);

    const workers = { a: startWorker("a"), b: startWorker("b") };
    const ended = Object.fromEntries(
      Object.entries(workers).map(([name, child]) => [
        name,
        new Promise<number | null>((resolve) => child.on("exit", resolve)),
      ]),
    );
    // The slow task's agent has asked the model and runs its command: kill that worker.
    while (model.requestsFor("slow") === 0) await sleep(50);
    const running = (name: string) => existsSync(join(root, name, "out/tasks/slow/running.json"));
    while (!running("a") && !running("b")) await sleep(50);
    const [killed, survivor] = running("a") ? (["a", "b"] as const) : (["b", "a"] as const);
    workers[killed].kill("SIGKILL");
    await ended[killed];
    expect(existsSync(join(root, killed, "out/tasks/slow/result.json"))).toBe(false);

    // The killed worker's agent notices and ends itself and its command.
    const killedWork = join(root, killed, "work");
    for (let waited = 0; processesIn(killedWork).length > 0 && waited < 100; waited += 1) {
      await sleep(100);
    }
    expect(processesIn(killedWork)).toEqual([]);

    // The other worker takes the stalled task over, then finds the queue empty and ends.
    expect(await ended[survivor]).toBe(0);

    const collected = join(root, "collected");
    const status = await batch("status", ...queue, "--out", collected);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/completed +4\n/);
    expect(status.stdout).toMatch(/failed +0\n/);
    expect(readdirSync(join(collected, "tasks")).sort()).toEqual(["q1", "q2", "q3", "slow"]);
    const results = readFileSync(join(collected, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TaskResult);
    expect(results.map((result) => [result.id, result.status]).sort()).toEqual(
      [
        ["q1", "success"],
        ["q2", "success"],
        ["slow", "success"],
        ["q3", "success"],
      ].sort(),
    );
    // Each quick task asked the model twice (run the command, then say done): it ran once.
    for (const id of ["q1", "q2", "q3"]) expect(model.requestsFor(id)).toBe(2);
    // The slow one: once for the killed attempt, twice for the one that finished.
    expect(model.requestsFor("slow")).toBe(3);
    const slow = results.find((result) => result.id === "slow");
    expect(slow?.attempt).toBe(2);
    expect(readFileSync(join(collected, "tasks/slow/patch.diff"), "utf8")).toContain("+slow");
  });

  it("stopped with Ctrl-C, a worker ends its agent and puts the task back for another worker", async () => {
    const { root, tasksFile, queue, batch, startWorker } = setUp("stopped", [
      // Named like a key of BullMQ's own, which a job id must not overwrite.
      { id: "paused", command: "sleep 3; echo paused > paused.txt" },
    ]);
    await batch("enqueue", tasksFile, ...queue);
    const worker = startWorker("first");
    const ended = new Promise<number | null>((resolve) => worker.on("exit", resolve));
    while (!existsSync(join(root, "first/out/tasks/paused/running.json"))) await sleep(50);
    while (model.requestsFor("paused") === 0) await sleep(50);
    worker.kill("SIGINT");
    expect(await ended).toBe(130);
    expect(processesIn(join(root, "first", "work"))).toEqual([]);
    const between = await batch("status", ...queue);
    expect(between.stdout).toMatch(/waiting +1\n/);
    expect(between.stdout).toMatch(/failed +0\n/);

    const next = startWorker("next");
    expect(await new Promise((resolve) => next.on("exit", resolve))).toBe(0);
    const collected = join(root, "collected");
    const status = await batch("status", ...queue, "--out", collected);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    const result: TaskResult = JSON.parse(
      readFileSync(join(collected, "tasks/paused/result.json"), "utf8"),
    );
    expect(result.status).toBe("success");
  });
});
