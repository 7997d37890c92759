// `agentloop batch ...` command lines: what each one means, and one sentence for each mistake.

import { describe, expect, it } from "vitest";
import { parseBatchCommand } from "../src/batch/command-line.js";

const parse = (line: string, env: NodeJS.ProcessEnv = {}) =>
  parseBatchCommand(line.split(" "), env, "/work");

describe("batch command lines", () => {
  it("read run's options, with auto as the agents' permission mode", () => {
    expect(parse("run tasks.jsonl --out out --workers 8 --shard 1/3 --model m")).toMatchObject({
      command: "run",
      tasksFile: "/work/tasks.jsonl",
      out: "/work/out",
      workers: 8,
      shard: { index: 1, count: 3 },
      maxAttempts: 3,
      agent: { model: "m", permissionMode: "auto", flags: ["--permission-mode", "auto"] },
    });
  });

  it("pass the agent's own limits on as one-shot flags", () => {
    const command = parse("run t --out o --max-turns 9 --tools bash --permission-mode yolo");
    expect(command).toMatchObject({
      agent: { flags: ["--permission-mode", "yolo", "--tools", "bash", "--max-turns", "9"] },
    });
  });

  it("pass --api on to every agent", () => {
    expect(parse("run t --out o --provider vllm --api responses")).toMatchObject({
      agent: { provider: "vllm", flags: ["--permission-mode", "auto", "--api", "responses"] },
    });
  });

  it("check a local repository out as a worktree in yolo, and as a clone where commands are sandboxed", () => {
    expect(parse("run t --out o --permission-mode yolo")).toMatchObject({ isolation: "worktree" });
    expect(parse("run t --out o")).toMatchObject({ isolation: "clone" });
    expect(parse("worker --queue redis://h --out o --isolation worktree")).toMatchObject({
      isolation: "worktree",
    });
    expect(parse("run t --out o --permission-mode yolo --isolation clone")).toMatchObject({
      isolation: "clone",
    });
  });

  it.each([
    ["run t --out o --isolation copy", '--isolation must be worktree or clone, got "copy"'],
    ["run t --out o --api completions", "--api must be responses or chat"],
    ["run t", "agentloop batch run needs --out DIR."],
    ["run --out o", "agentloop batch run takes one task file."],
    ["run t --out o --workers 0", "--workers must be a whole number of at least 1"],
    ["run t --out o --progress loud", "--progress must be line, jsonl or none"],
    [
      "worker --queue redis://h --out o --max-total-cost 5",
      "agentloop batch worker has no --max-total-cost",
    ],
    ["worker --queue redis://h --out o --shard 1/2", "agentloop batch worker has no --shard"],
    ["report out --workers 2", "agentloop batch report has no --workers"],
    ["enqueue t", "agentloop batch enqueue needs --queue redis://HOST:PORT."],
    ["launch t", 'agentloop batch has no command "launch"'],
    ["run t --out o --colour", "Unknown option '--colour'"],
  ])("refuse `%s`", (line, message) => {
    expect(() => parse(line)).toThrow(message);
  });
});
