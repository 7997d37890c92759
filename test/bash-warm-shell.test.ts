import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSandbox } from "../src/sandbox/select.js";
import { WARM_COMMAND_MAX_BYTES } from "../src/tools/warm-shell.js";
import { type BashTool, bashTool, pgrep, run, workspace } from "./support/bash-harness.js";
import { isAlive } from "./support/processes.js";

/**
 * The process started for the tool's next command, waiting for its input: bash, or what wraps
 * it (the program the command line starts with).
 */
async function waitingShell(program = "bash"): Promise<number> {
  let waiting: number[] = [];
  await eventually(() => {
    waiting = pgrep(`^${program} .*-c printf R`).filter((pid) => parentOf(pid) === process.pid);
    return waiting.length === 1;
  });
  return waiting[0] as number;
}

/** From ps, which Linux and macOS both have. */
function parentOf(pid: number): number | undefined {
  const parent = spawnSync("ps", ["-o", "ppid=", "-p", `${pid}`], { encoding: "utf8" }).stdout;
  return parent.trim() === "" ? undefined : Number(parent);
}

/** A process's start time in clock ticks (1/100 s) since boot, from its /proc/PID/stat. */
function startTicks(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
}

async function eventually(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Still not true after 3 s: ${condition}`);
}

/** What a command can see of the shell it runs in, apart from its process ID. */
const PROBE = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash expands it, not JavaScript.
  'echo "$0 $SHLVL $- ${BASH_ENV-no BASH_ENV} ${command-no command}"',
  "env | grep -v '^AGENTLOOP_JOB=' | sort",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash expands it, not JavaScript.
  'for fd in /proc/$$/fd/*; do echo "${fd##*/} $(readlink "$fd" | cut -d: -f1)"; done',
  'cat; echo "input ended with $?"',
  "trap -p EXIT | wc -l",
].join("\n");

async function probeColdThenWarm(tool: BashTool): Promise<{ cold: string; warm: string }> {
  const cold = await run(tool, PROBE);
  const pid = await waitingShell();
  const warm = await run(tool, `${PROBE}\necho "pid $$"`);
  expect(warm.content).toContain(`pid ${pid}\n`);
  return { cold: cold.content, warm: warm.content.replace(`pid ${pid}\n`, "") };
}

describe("the bash tool starts the shell for the next command before it is asked", () => {
  it("runs the next command in the shell that was already waiting", async () => {
    const tool = bashTool();
    await run(tool, "true");
    const pid = await waitingShell();
    expect((await run(tool, "echo $$")).content).toBe(`${pid}\n[exit code 0]`);
  });

  it.each([
    ["no locale", undefined],
    ["an installed locale", "C.UTF-8"],
    ["a locale that is not installed, warned about once", "xx_XX.UTF-8"],
  ])("gives the command what a freshly started shell sees, with %s", async (_, locale) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: locale };
    const { cold, warm } = await probeColdThenWarm(bashTool({ env }));
    // bash warns on stderr before the command sends stderr into stdout: either may come first.
    const warning = /^bash: warning: setlocale: LC_ALL: cannot change locale.*\n/m;
    expect(warm.replace(warning, "")).toBe(cold.replace(warning, ""));
    const warned = locale === "xx_XX.UTF-8" ? 1 : 0;
    for (const output of [cold, warm])
      expect(output.match(/setlocale/g) ?? []).toHaveLength(warned);
  });

  it("does so through a wrapper such as the sandbox", async () => {
    const wrap = (argv: string[]) => ["env", "WRAPPED=yes", "sh", "-c", 'exec "$@"', "sh", ...argv];
    const { cold, warm } = await probeColdThenWarm(bashTool({ wrap }));
    expect(warm).toBe(cold);
    expect(warm).toContain("WRAPPED=yes");
  });

  it("is not used once the sandbox would start differently, as when a credential file appears", async () => {
    const credentials = join(workspace(), ".netrc");
    // A stand-in for the sandbox, which hides such files only if they exist when it starts.
    const wrap = (argv: string[]) => ["env", `HIDDEN=${existsSync(credentials)}`, ...argv];
    const tool = bashTool({ wrap });
    await run(tool, "true");
    const pid = await waitingShell();
    writeFileSync(credentials, "machine example.com password secret\n");
    expect((await run(tool, 'echo "$HIDDEN"')).content).toBe("true\n[exit code 0]");
    await eventually(() => !isAlive(pid));
  });

  it.runIf(process.platform === "linux")(
    "does so inside bubblewrap, the real sandbox",
    async () => {
      const root = workspace();
      const tmpDir = workspace();
      const sandbox = createSandbox({
        workspace: root,
        writable: true,
        allowNetwork: false,
        tmpDir,
      });
      const tool = bashTool({ cwd: root, wrap: sandbox.wrap, tempDir: tmpDir });
      const cold = await run(tool, PROBE);
      const waiting = startTicks(
        readFileSync(`/proc/${await waitingShell("bwrap")}/stat`, "latin1"),
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      const sandboxed = "touch /etc/agentloop-probe 2>/dev/null || echo read-only";
      const warm = await run(tool, `${PROBE}\n${sandboxed}\ncat /proc/1/stat`);
      // The sandbox's first process started with the waiting one, not 600 ms later with the command.
      const [probe, initStat] = warm.content.split(/\n(?=1 \(bwrap\))/);
      expect(startTicks(initStat as string) - waiting).toBeLessThan(30);
      expect(`${probe}\n`).toBe(cold.content.replace("[exit code 0]", "read-only\n"));
    },
  );

  it("keeps the exit status and the signal that ended the command", async () => {
    const tool = bashTool();
    await run(tool, "true");
    await waitingShell();
    expect((await run(tool, "exit 3")).content).toBe("(no output)\n[exit code 3]");
    await waitingShell();
    expect((await run(tool, "kill -KILL $$")).content).toBe(
      "(no output)\n[killed by signal SIGKILL]",
    );
  });

  it("starts the command the ordinary way when the waiting shell has died", async () => {
    const tool = bashTool();
    await run(tool, "true");
    const pid = await waitingShell();
    process.kill(pid, "SIGKILL");
    const result = await run(tool, "echo $$");
    expect(result.content).toMatch(/^\d+\n\[exit code 0\]$/);
    expect(result.content).not.toContain(`${pid}`);
  });

  it("starts a command too long to hand over the ordinary way, and lets the waiting shell go", async () => {
    const tool = bashTool();
    await run(tool, "true");
    const pid = await waitingShell();
    const long = `: ${"x".repeat(WARM_COMMAND_MAX_BYTES)}\necho $$`;
    const result = await run(tool, long);
    expect(result.content).toMatch(/^\d+\n\[exit code 0\]$/);
    expect(result.content).not.toContain(`${pid}`);
    await eventually(() => !isAlive(pid));
  });

  it("leaves no waiting shell behind when disposed", async () => {
    const tool = bashTool();
    await run(tool, "true");
    const pid = await waitingShell();
    await tool.dispose?.();
    expect(isAlive(pid)).toBe(false);
  });
});
