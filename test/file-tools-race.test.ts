// The check-to-write race: a command running beside the session flips a link `d` between a
// folder of the workspace and a folder outside it (standing for $HOME), as fast as bash can,
// while the model writes `d/x` again and again through the toolbox and the permission check of
// ask mode, a person approving every change inside the workspace and none outside. Each write is either refused (judged while `d` led outside) or lands inside the
// workspace (judged while it led inside): none may land outside, whichever way `d` points by
// the time the file is written.

import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../src/core/messages.js";
import { createPermissionCheck, noRules } from "../src/permissions/policy.js";
import { createFileReads } from "../src/tools/file-reads.js";
import type { Tool } from "../src/tools/tool.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { createWriteTool } from "../src/tools/write.js";

/** How long the link flips while the model writes: bounded, and long enough for many flips. */
const RACE_MS = 2_500;

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-race-")));
// The system's temp directory may be changed freely, as commands may: "home" must lie outside
// it, so the temp directory is moved aside for this file's process.
const systemTemp = process.env.TMPDIR;
process.env.TMPDIR = join(root, "tmp");
mkdirSync(process.env.TMPDIR);
afterAll(() => {
  if (systemTemp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = systemTemp;
  rmSync(root, { recursive: true, force: true });
});

/** A bash loop swapping `link` between `a` and `b` with atomic renames, until it is killed. */
function flipLink(link: string, a: string, b: string): ChildProcess {
  const script = `while :; do ln -sfn "$1" "$3.new" && mv -T "$3.new" "$3"; ln -sfn "$2" "$3.new" && mv -T "$3.new" "$3"; done`;
  return spawn("bash", ["-c", script, "flip", a, b, link], { stdio: "ignore" });
}

function call(id: number, name: string, input: Record<string, unknown>): ToolUseBlock {
  return { type: "tool_use", id: `call_${id}`, name, input };
}

describe("a link flipped between the check and the write", () => {
  it("never lets a write land outside the workspace", async () => {
    const workspace = join(root, "work");
    const inside = join(workspace, "inside");
    const home = join(root, "home");
    mkdirSync(inside, { recursive: true });
    mkdirSync(home);
    writeFileSync(join(home, ".bashrc"), "# the person's own\n");
    const reads = createFileReads();
    const tools = [createWriteTool({ workspace, reads })] as Tool[];
    // The person approves each change inside the workspace and declines any outside it (a
    // question that says why it is asked is about a change outside).
    const check = createPermissionCheck({
      mode: "ask",
      workspace,
      home,
      rules: noRules(),
      ask: async (question) => (question.reason ? "no" : "yes"),
    });
    const toolbox = createToolbox(tools, check);
    const signal = new AbortController().signal;

    symlinkSync(inside, join(workspace, "d"));
    const flipper = flipLink(join(workspace, "d"), inside, home);
    let written = 0;
    let refused = 0;
    try {
      const until = Date.now() + RACE_MS;
      for (let id = 0; Date.now() < until; id++) {
        const result = await toolbox.run(
          call(id, "write", { file_path: `d/x${id}`, content: "written by the model\n" }),
          signal,
        );
        if (result.is_error) refused++;
        else written++;
      }
    } finally {
      flipper.kill("SIGKILL");
    }
    // Both ways happened: the race was run, not avoided.
    expect(written).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(readdirSync(home).sort()).toEqual([".bashrc"]);
    expect(readdirSync(inside).filter((name) => name.startsWith("x"))).toHaveLength(written);
  });
});
