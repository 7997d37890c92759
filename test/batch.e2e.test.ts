// `agentloop batch` end to end: the built CLI runs a task file against the fake model, each
// task in its own clone of a fixture repository, under the default sandbox (auto).

import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskResult } from "../src/batch/task-result.js";
import {
  type BatchModel,
  batchPrompt,
  OVERLOADED,
  startBatchModel,
} from "./support/batch-model.js";
import { CLI, freshSandbox, runCli } from "./support/cli-harness.js";
import { processesIn } from "./support/processes.js";

interface Fixture {
  root: string;
  repo: string;
  firstCommit: string;
  env: Record<string, string>;
  out: string;
  work: string;
  tasksFile: string;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** A repository with two commits: old.txt exists only in the first. */
function makeFixture(model: BatchModel, lines: object[]): Fixture {
  const sandbox = freshSandbox();
  const root = join(sandbox.home, "..");
  const repo = join(root, "repo");
  mkdirSync(repo);
  git(repo, "init", "--quiet");
  git(repo, "config", "user.email", "t@example.invalid");
  git(repo, "config", "user.name", "t");
  writeFileSync(join(repo, "old.txt"), "from the first commit\n");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "first");
  const firstCommit = git(repo, "rev-parse", "HEAD");
  git(repo, "rm", "--quiet", "old.txt");
  writeFileSync(join(repo, "README.md"), "# fixture\n");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "second");
  const tasksFile = join(root, "tasks.jsonl");
  writeFileSync(
    tasksFile,
    lines.map((line) => JSON.stringify(line).replaceAll("FIRST", firstCommit)).join("\n"),
  );
  return {
    root,
    repo,
    firstCommit,
    env: {
      ...sandbox.env,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_MAX_RETRIES: "0",
    },
    out: join(root, "out"),
    work: join(root, "work"),
    tasksFile,
  };
}

function batch(fixture: Fixture, ...args: string[]) {
  return runCli(["batch", ...args], { env: fixture.env, cwd: fixture.root });
}

/** `batch run` of the fixture's task file into its output folder. */
function runBatch(fixture: Fixture, ...flags: string[]) {
  return batch(
    fixture,
    "run",
    fixture.tasksFile,
    "--out",
    fixture.out,
    "--work-dir",
    fixture.work,
    ...flags,
  );
}

function resultOf(out: string, id: string): TaskResult {
  return JSON.parse(readFileSync(join(out, "tasks", id, "result.json"), "utf8"));
}

function patchOf(out: string, id: string): string {
  return readFileSync(join(out, "tasks", id, "patch.diff"), "utf8");
}

const task = (id: string, command: string, more: object = {}) => ({
  id,
  prompt: batchPrompt(id, command),
  ...more,
});

describe("agentloop batch run", () => {
  let model: BatchModel;
  beforeAll(async () => {
    model = await startBatchModel();
  });
  afterAll(() => model.close());

  it("runs each task in its own clone, keeps only its change, and says with the exit code that some failed", async () => {
    const fixture = makeFixture(model, [
      { ...task("add-file", "echo a > a.txt"), repo: "./repo" },
      { ...task("edit-readme", "echo more >> README.md"), repo: "./repo" },
      {
        ...task("after-setup", "cat setup.txt > from-setup.txt"),
        repo: "./repo",
        setup: "echo prepared > setup.txt",
      },
      { ...task("old-base", "cp old.txt copy.txt"), repo: "./repo", base_commit: "FIRST" },
      { ...task("empty", "echo fresh > fresh.txt"), metadata: { instance_id: "x__y-1" } },
      { ...task("too-many-turns", "echo never > never.txt"), repo: "./repo", max_turns: 1 },
      { ...task("too-slow", "sleep 31.7"), repo: "./repo", timeout_s: 3 },
    ]);
    const headBefore = git(fixture.repo, "rev-parse", "HEAD");
    const run = await batch(
      fixture,
      "run",
      fixture.tasksFile,
      "--out",
      fixture.out,
      "--workers",
      "3",
      "--work-dir",
      fixture.work,
    );
    expect(run.code, run.stderr).toBe(1);

    const statuses = Object.fromEntries(
      [
        "add-file",
        "edit-readme",
        "after-setup",
        "old-base",
        "empty",
        "too-many-turns",
        "too-slow",
      ].map((id) => [id, resultOf(fixture.out, id).status]),
    );
    expect(statuses).toEqual({
      "add-file": "success",
      "edit-readme": "success",
      "after-setup": "success",
      "old-base": "success",
      empty: "success",
      "too-many-turns": "failed",
      "too-slow": "timeout",
    });
    // Each patch holds its own task's change and nothing of the others' or of the setup.
    expect(patchOf(fixture.out, "add-file")).toContain("+++ b/a.txt");
    expect(patchOf(fixture.out, "add-file")).not.toMatch(/README|from-setup|copy\.txt/);
    expect(patchOf(fixture.out, "edit-readme")).toMatch(/\+\+\+ b\/README\.md[\s\S]*\+more/);
    expect(patchOf(fixture.out, "after-setup")).toContain("+++ b/from-setup.txt");
    expect(patchOf(fixture.out, "after-setup")).toContain("+prepared");
    expect(patchOf(fixture.out, "after-setup")).not.toContain("b/setup.txt");
    expect(patchOf(fixture.out, "old-base")).toMatch(/\+\+\+ b\/copy\.txt[\s\S]*from the first/);
    expect(patchOf(fixture.out, "empty")).toContain("+++ b/fresh.txt");

    const done = resultOf(fixture.out, "add-file");
    expect(done).toMatchObject({
      exit_code: 0,
      attempt: 1,
      stop_reason: "end_turn",
      result: "done add-file",
    });
    expect(done.num_turns).toBe(2);
    expect(done.session_file).toMatch(/\.jsonl$/);
    expect(existsSync(join(fixture.out, "tasks", "add-file", done.session_file as string))).toBe(
      true,
    );
    expect(resultOf(fixture.out, "empty").metadata).toEqual({ instance_id: "x__y-1" });
    expect(resultOf(fixture.out, "too-many-turns").stop_reason).toBe("max_turns");

    // The source repository is untouched, and nothing is left running or on disk.
    expect(git(fixture.repo, "rev-parse", "HEAD")).toBe(headBefore);
    expect(git(fixture.repo, "status", "--porcelain")).toBe("");
    expect(readdirSync(fixture.work)).toEqual([]);
    expect(processesIn(fixture.work)).toEqual([]);
    const results = readFileSync(join(fixture.out, "results.jsonl"), "utf8").trim().split("\n");
    expect(results).toHaveLength(7);

    // Run again: every task has a result, so not a single request is made.
    const requestsBefore = model.fake.requests.length;
    const again = await runBatch(fixture);
    expect(again.code).toBe(1);
    expect(model.fake.requests.length).toBe(requestsBefore);

    const report = await batch(
      fixture,
      "report",
      fixture.out,
      "--preds",
      join(fixture.root, "preds.json"),
    );
    expect(report.code).toBe(1);
    expect(report.stdout).toContain("too-slow: timeout");
    const preds = JSON.parse(readFileSync(join(fixture.root, "preds.json"), "utf8"));
    expect(preds["x__y-1"]).toMatchObject({
      instance_id: "x__y-1",
      model_name_or_path: "agentloop",
    });
    expect(preds["x__y-1"].model_patch).toContain("fresh.txt");
  });

  it("killed with SIGKILL and run again, finishes the rest without one request for what was done", async () => {
    const ids = ["k1", "k2", "k3", "k4", "k5"];
    const fixture = makeFixture(
      model,
      ids.map((id) => ({ ...task(id, `sleep 1.5; echo ${id} > ${id}.txt`), repo: "./repo" })),
    );
    const args = ["run", fixture.tasksFile, "--out", fixture.out, "--work-dir", fixture.work];
    const first = spawn(process.execPath, [CLI, "batch", ...args, "--workers", "2"], {
      cwd: fixture.root,
      env: fixture.env,
      stdio: "ignore",
    });
    const has = (id: string, file: string) => existsSync(join(fixture.out, "tasks", id, file));
    // Killed once a task is done and another has its agent talking to the model.
    const talking = (id: string) =>
      has(id, "running.json") && !has(id, "result.json") && model.requestsFor(id) > 0;
    while (!ids.some((id) => has(id, "result.json")) || !ids.some(talking)) await sleep(50);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.on("exit", resolve));
    const finished = ids.filter((id) => has(id, "result.json"));
    const interrupted = ids.filter((id) => has(id, "running.json") && !finished.includes(id));
    const requestsAtKill = Object.fromEntries(ids.map((id) => [id, model.requestsFor(id)]));
    expect(interrupted.length).toBeGreaterThan(0);
    // The agents notice their batch is gone and end themselves and their commands.
    for (let waited = 0; processesIn(fixture.work).length > 0 && waited < 100; waited += 1) {
      await sleep(100);
    }
    expect(processesIn(fixture.work)).toEqual([]);

    const again = await runBatch(fixture, "--workers", "2");
    expect(again.code, again.stderr).toBe(0);
    for (const id of ids) expect(resultOf(fixture.out, id).status).toBe("success");
    for (const id of finished) expect(model.requestsFor(id)).toBe(requestsAtKill[id]);
    for (const id of interrupted) expect(resultOf(fixture.out, id).attempt).toBe(2);
    // The session file of a killed attempt that had reached the model stays beside the new one.
    const reached = interrupted.filter((id) => (requestsAtKill[id] ?? 0) > 0);
    expect(reached.length).toBeGreaterThan(0);
    for (const id of reached) {
      const sessions = join(fixture.out, "tasks", id, "state", "agentloop", "sessions");
      expect(readdirSync(sessions).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);
    }
    expect(readdirSync(fixture.work)).toEqual([]);
  });

  it("on Ctrl-C cancels what runs, leaves nothing behind and exits with 130", async () => {
    const fixture = makeFixture(model, [task("i1", "sleep 30.3"), task("i2", "sleep 30.3")]);
    const args = ["run", fixture.tasksFile, "--out", fixture.out, "--work-dir", fixture.work];
    const child = spawn(process.execPath, [CLI, "batch", ...args], {
      cwd: fixture.root,
      env: fixture.env,
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    while (model.requestsFor("i1") + model.requestsFor("i2") < 2) await sleep(50);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(["i1", "i2"].map((id) => resultOf(fixture.out, id).status)).toEqual([
      "cancelled",
      "cancelled",
    ]);
    expect(readdirSync(fixture.work)).toEqual([]);
    expect(processesIn(fixture.work)).toEqual([]);
  });

  it("stops at --max-total-cost, cancelling what runs; a later run finishes the cancelled tasks", async () => {
    const fixture = makeFixture(model, [
      task("c1", "sleep 1"),
      task("c2", "sleep 1"),
      task("c3", "true"),
    ]);
    const capped = await runBatch(fixture, "--workers", "2", "--max-total-cost", "0.000001");
    expect(capped.code).toBe(1);
    expect(capped.stderr).toContain("Stopped at --max-total-cost");
    const statuses = ["c1", "c2"].map((id) => resultOf(fixture.out, id).status);
    expect(statuses).toEqual(["cancelled", "cancelled"]);
    expect(existsSync(join(fixture.out, "tasks", "c3", "result.json"))).toBe(false);

    const rest = await runBatch(fixture);
    expect(rest.code, rest.stderr).toBe(0);
    expect(["c1", "c2", "c3"].map((id) => resultOf(fixture.out, id).status)).toEqual([
      "success",
      "success",
      "success",
    ]);
    expect(resultOf(fixture.out, "c1").attempt).toBe(2);
  });

  it("tries a task again when the API keeps failing, a bounded number of times, and exits with 3", async () => {
    const fixture = makeFixture(model, [task("steady", "true"), task("flaky", OVERLOADED)]);
    const run = await runBatch(fixture, "--max-attempts", "2");
    expect(run.code, run.stderr).toBe(3);
    expect(resultOf(fixture.out, "steady").status).toBe("success");
    expect(resultOf(fixture.out, "flaky")).toMatchObject({
      status: "error",
      attempt: 2,
      error: { kind: "retries_exhausted" },
    });
    // Six tries per agent (its own retries), two agents.
    expect(model.requestsFor("flaky")).toBe(12);
  });

  it("ends what an agent killed with SIGKILL left running in sessions of its own", async () => {
    // The command starts a daemon outside every process group, then kills its agent, which
    // so never gets to end its commands.
    const runaway = "setsid nohup sleep 77.7 >/dev/null 2>&1 & sleep 0.2; kill -9 $PPID";
    const fixture = makeFixture(model, [task("escape", runaway)]);
    const run = await runBatch(fixture, "--max-attempts", "1", "--permission-mode", "yolo");
    expect(run.code, run.stderr).toBe(3);
    expect(resultOf(fixture.out, "escape")).toMatchObject({
      status: "error",
      error: { kind: "worker_died" },
    });
    expect(processesIn(fixture.work)).toEqual([]);
  });

  it("counts a sandbox that cannot start as the infrastructure's fault: tried again, exit code 3", async () => {
    const fixture = makeFixture(model, [task("boxed", "true")]);
    // A PATH with git and bash but no bubblewrap.
    const bin = join(fixture.root, "bin");
    mkdirSync(bin);
    for (const program of ["git", "bash"]) {
      symlinkSync(
        execFileSync("which", [program], { encoding: "utf8" }).trim(),
        join(bin, program),
      );
    }
    fixture.env.PATH = bin;
    const run = await runBatch(fixture, "--max-attempts", "2", "--permission-mode", "auto");
    expect(run.code, run.stderr).toBe(3);
    const result = resultOf(fixture.out, "boxed");
    expect(result).toMatchObject({ status: "error", attempt: 2, error: { kind: "sandbox" } });
    expect(model.requestsFor("boxed")).toBe(0);
  });

  it("reports every bad line of a task file with its number, and runs nothing", async () => {
    const fixture = makeFixture(model, [
      task("fine", "true"),
      { id: "../escape", prompt: "x" },
      { id: "no-prompt" },
      task("fine", "true"),
      { ...task("typo", "true"), timeout: 5 },
    ]);
    const requestsBefore = model.fake.requests.length;
    const run = await batch(fixture, "run", fixture.tasksFile, "--out", fixture.out);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("line 2:");
    expect(run.stderr).toContain('line 3: "prompt" is missing');
    expect(run.stderr).toContain('line 4: id "fine" is already used on line 1');
    expect(run.stderr).toContain('line 5: unknown field "timeout"');
    expect(model.fake.requests.length).toBe(requestsBefore);
    expect(existsSync(fixture.out)).toBe(false);
  });

  it("splits a batch into disjoint shards that merge into the whole", async () => {
    const ids = ["s1", "s2", "s3", "s4", "s5"];
    const fixture = makeFixture(
      model,
      ids.map((id) => task(id, `echo ${id} > ${id}.txt`)),
    );
    const shardOut = (index: number) => join(fixture.root, `shard-${index}`);
    const runs = [];
    for (const index of [0, 1]) {
      const run = await batch(
        fixture,
        "run",
        fixture.tasksFile,
        "--out",
        shardOut(index),
        "--shard",
        `${index}/2`,
        "--work-dir",
        fixture.work,
        "--progress",
        "jsonl",
      );
      expect(run.code, run.stderr).toBe(0);
      runs.push(run);
    }
    // --progress jsonl: one event per line on stdout, for CI to follow.
    const events = (runs[0]?.stdout ?? "")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events[0]).toEqual({ type: "batch_started", total: 3, to_run: 3, workers: 4 });
    const finished = events.filter((event) => event.type === "task_finished");
    expect(finished.map((event) => event.result.id).sort()).toEqual(["s1", "s3", "s5"]);
    expect(events.at(-1)).toMatchObject({
      type: "batch_finished",
      summary: { total: 3, counts: { success: 3 }, exit_code: 0 },
    });
    const inShard = (index: number) => readdirSync(join(shardOut(index), "tasks")).sort();
    expect(inShard(0)).toEqual(["s1", "s3", "s5"]);
    expect(inShard(1)).toEqual(["s2", "s4"]);

    // The index may come from a Kubernetes Indexed Job instead.
    const k8s = await runCli(
      ["batch", "run", fixture.tasksFile, "--out", shardOut(1), "--shard", "2"],
      { env: { ...fixture.env, JOB_COMPLETION_INDEX: "1" }, cwd: fixture.root },
    );
    expect(k8s.code).toBe(0);
    expect(inShard(1)).toEqual(["s2", "s4"]);

    const merged = join(fixture.root, "merged");
    const merge = await batch(fixture, "merge", shardOut(0), shardOut(1), "--out", merged);
    expect(merge.code, merge.stderr).toBe(0);
    expect(readdirSync(join(merged, "tasks")).sort()).toEqual(ids);
    const lines = readFileSync(join(merged, "results.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(ids);
  });
});
