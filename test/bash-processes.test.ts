import { describe, expect, it } from "vitest";
import { bashTool, pgrep, run, uniqueSleep } from "./support/bash-harness.js";
import { isAlive } from "./support/processes.js";

function backgroundPids(content: string): number[] {
  const listed = /still running in the background: PID ([\d, ]+);/.exec(content)?.[1] ?? "";
  return listed.split(", ").filter(Boolean).map(Number);
}

describe("the bash tool ends every command", () => {
  it("returns at once when a background process keeps the output pipe open", async () => {
    const tool = bashTool();
    const sleeper = uniqueSleep();
    const result = await run(tool, `${sleeper.command} & echo started`);
    expect(result.ms).toBeLessThan(2000);
    expect(result.content).toMatch(/^started\n\[exit code 0\]/);
    expect(result.isError).toBe(false);
    const [pid] = pgrep(sleeper.pattern);
    expect(backgroundPids(result.content)).toEqual([pid]);
  });

  it("keeps a background process running after the call, writing output nobody reads", async () => {
    const tool = bashTool();
    const sleeper = uniqueSleep();
    const result = await run(tool, `(sleep 0.3; echo late; seq 1 100000; ${sleeper.command}) &`);
    await new Promise((resolve) => setTimeout(resolve, 800));
    // Had the pipe been closed, writing "late" would have killed the subshell with SIGPIPE;
    // had nobody read it, `seq` would still be blocked on a full pipe.
    const [pid] = pgrep(sleeper.pattern);
    expect(backgroundPids(result.content)).toContain(pid);
  });

  it("ends background processes, nohup and setsid daemons included, when disposed", async () => {
    const tool = bashTool();
    const [plain, nohup, daemon] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const result = await run(
      tool,
      `${plain.command} &
nohup ${nohup.command} >/dev/null 2>&1 &
setsid sh -c '${daemon.command} >/dev/null 2>&1 &'`,
    );
    expect(result.isError).toBe(false);
    const pids = [plain, nohup, daemon].flatMap((sleeper) => pgrep(sleeper.pattern));
    expect(pids).toHaveLength(3);
    // The setsid daemon left the process group and lost its parent, and is still found.
    expect(backgroundPids(result.content).sort()).toEqual(expect.arrayContaining(pids.sort()));
    await tool.dispose?.();
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it("ends what a command left running when its shell exits, for a sandbox that cannot (Seatbelt)", async () => {
    const tool = bashTool({ endLeftovers: true });
    const [plain, daemon] = [uniqueSleep(), uniqueSleep()];
    const result = await run(tool, `${plain.command} & setsid ${daemon.command} & echo started`);
    expect(result.content).toBe("started\n[exit code 0]");
    expect([...pgrep(plain.pattern), ...pgrep(daemon.pattern)]).toEqual([]);
  });

  it("kills a whole tree of grandchildren on timeout, daemons and all", async () => {
    const tool = bashTool();
    const sleeper = uniqueSleep();
    const s = sleeper.command;
    const result = await run(
      tool,
      `bash -c "bash -c '${s} & ${s}' & ${s}" &
setsid ${s} &
env -i ${s} &
nohup ${s} >/dev/null 2>&1 &
${s}`,
      1,
    );
    expect(result.content).toContain("[timed out after 1 s;");
    expect(result.isError).toBe(true);
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });

  it("kills processes that ignore SIGTERM, after a grace period", async () => {
    const tool = bashTool();
    const sleeper = uniqueSleep();
    const result = await run(tool, `trap '' TERM; ${sleeper.command} & ${sleeper.command}`, 0.5);
    expect(result.content).toContain("[timed out after 0.5 s;");
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });

  it("keeps the output printed before a timeout", async () => {
    const tool = bashTool();
    const result = await run(tool, "echo first line; printf 'no newline yet'; sleep 30", 1);
    expect(result.content).toMatch(/^first line\nno newline yet\n\[timed out after 1 s;/);
  });

  it("kills the command and its children when the user interrupts", async () => {
    const tool = bashTool();
    const sleeper = uniqueSleep();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await run(
      tool,
      `echo working; ${sleeper.command} & ${sleeper.command}`,
      30,
      controller.signal,
    );
    expect(result.ms).toBeLessThan(5000);
    expect(result.content).toMatch(/^working\n\[interrupted by the user;/);
    expect(result.isError).toBe(true);
    expect(pgrep(sleeper.pattern)).toEqual([]);
  });

  it("does not start a command once the turn was interrupted", async () => {
    const tool = bashTool();
    const controller = new AbortController();
    controller.abort();
    const result = await run(tool, "echo never", 5, controller.signal);
    expect(result).toMatchObject({ content: "[interrupted by the user; not run]", isError: true });
  });

  it("caps the timeout at 600 seconds and refuses one that is not positive", async () => {
    const tool = bashTool();
    expect((await run(tool, "echo hi", 0)).isError).toBe(true);
    expect((await run(tool, "echo hi", -1)).content).toMatch(/positive number of seconds/);
    expect(tool.inputSchema.properties.timeout?.description).toMatch(/default 120, at most 600/);
  });
});

describe("the bash tool reports how a command ended", () => {
  it("shows the exit code and marks a non-zero one as an error", async () => {
    const tool = bashTool();
    expect(await run(tool, "echo ok")).toMatchObject({
      content: "ok\n[exit code 0]",
      isError: false,
    });
    expect(await run(tool, "echo bad >&2; exit 3")).toMatchObject({
      content: "bad\n[exit code 3]",
      isError: true,
    });
  });

  it("names the signal that killed the shell", async () => {
    const tool = bashTool();
    const result = await run(tool, "kill -TERM $$");
    expect(result).toMatchObject({
      content: "(no output)\n[killed by signal SIGTERM]",
      isError: true,
    });
  });

  it("explains an exit code that stands for a signal", async () => {
    const tool = bashTool();
    const result = await run(tool, "sh -c 'kill -KILL $$'");
    expect(result.content).toMatch(/\[exit code 137 \(a process was killed by SIGKILL\)\]$/);
  });

  it("reports a command Node cannot pass to bash as an error result", async () => {
    const result = await run(bashTool(), "echo a\0b");
    expect(result.content).toMatch(/the command could not be started: .*null bytes/);
    expect(result.isError).toBe(true);
  });

  it("says so when the wrapped program cannot be started", async () => {
    const tool = bashTool({ wrap: (argv) => ["/no/such/sandbox", ...argv] });
    const result = await run(tool, "echo hi");
    expect(result.content).toMatch(/the command could not be started: .*ENOENT/);
    expect(result.isError).toBe(true);
  });
});
