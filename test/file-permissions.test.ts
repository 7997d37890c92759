// The permission matrix for tools that read and change files: every mode against reads and
// changes inside the workspace, in the temp directory, outside, in credentials, and through
// symbolic links that point elsewhere. Paths are judged where they really lead.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../src/core/messages.js";
import {
  createPermissionCheck,
  noRules,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionQuestion,
} from "../src/permissions/policy.js";
import type { Tool } from "../src/tools/tool.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-file-perm-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A home with credentials, a workspace, and a place outside both and outside the temp
// directory (which the file tools may change): it need not exist to be judged, and the link
// to it dangles.
const home = join(root, "home");
const workspace = join(root, "work");
const outside = "/nonexistent-agentloop-test/elsewhere";
for (const dir of [join(home, ".ssh"), join(workspace, "src")]) mkdirSync(dir, { recursive: true });
writeFileSync(join(home, ".ssh", "id_ed25519"), "secret");
writeFileSync(join(workspace, "src", "app.ts"), "code");
symlinkSync(join(home, ".ssh"), join(workspace, "keys"));
symlinkSync(outside, join(workspace, "out"));
symlinkSync(join(workspace, "src"), join(workspace, "source"));

/** A tool like read/write: it names the one file a call touches. */
const fileTool = (name: string, change: boolean): Tool => ({
  name,
  description: name,
  inputSchema: {
    type: "object",
    properties: { file_path: { type: "string" } },
    required: ["file_path"],
  },
  isReadOnly: () => !change,
  files: (input) => [{ path: String(input.file_path), change }],
  preview: async (input) => `--- ${input.file_path}\n+++ ${input.file_path}\n+new line`,
  run: async () => ({ content: "ran", isError: false }),
});
const read = fileTool("read", false);
const write = fileTool("write", true);

function call(path: string): ToolUseBlock {
  return { type: "tool_use", id: "toolu_1", name: "x", input: { file_path: path } };
}

type Outcome = "runs" | "asks" | "refused" | "denied";

/** Where plan mode's plan is written: outside the workspace, in the session's own directory. */
const planFile = join(home, ".local", "state", "agentloop", "sessions", "s1", "plan.md");

async function outcome(
  mode: PermissionMode,
  tool: Tool,
  path: string,
  platform: NodeJS.Platform = "linux",
): Promise<Outcome> {
  const questions: PermissionQuestion[] = [];
  const ask = async (question: PermissionQuestion): Promise<PermissionAnswer> => {
    questions.push(question);
    return "yes";
  };
  const check = createPermissionCheck({
    mode,
    workspace,
    home,
    rules: noRules(),
    ask,
    platform,
    planFile: () => planFile,
  });
  const result = await check(call(path), tool);
  if (questions.length > 0) return "asks";
  if (result.allowed) return "runs";
  return result.reason.includes("credentials") ? "denied" : "refused";
}

// [what, tool, path, ask, auto, read-only, yolo]
const MATRIX: [string, Tool, string, Outcome, Outcome, Outcome, Outcome][] = [
  ["read a workspace file", read, "src/app.ts", "runs", "runs", "runs", "runs"],
  ["read a file outside", read, join(outside, "notes.txt"), "runs", "runs", "runs", "runs"],
  ["read a credential", read, "~/.ssh/id_ed25519", "denied", "denied", "denied", "denied"],
  [
    "read a credential through a link",
    read,
    "keys/id_ed25519",
    "denied",
    "denied",
    "denied",
    "denied",
  ],
  ["change a workspace file", write, "src/app.ts", "asks", "runs", "refused", "runs"],
  ["create a file in a new directory", write, "new/dir/file.ts", "asks", "runs", "refused", "runs"],
  [
    "change a file through a link inside",
    write,
    "source/app.ts",
    "asks",
    "runs",
    "refused",
    "runs",
  ],
  [
    "change a temp file",
    write,
    join(tmpdir(), "agentloop-scratch.txt"),
    "asks",
    "runs",
    "refused",
    "runs",
  ],
  [
    "change a file outside",
    write,
    join(outside, "notes.txt"),
    "asks",
    "refused",
    "refused",
    "runs",
  ],
  [
    "change a file through a link outside",
    write,
    "out/notes.txt",
    "asks",
    "refused",
    "refused",
    "runs",
  ],
  [
    "escape with ..",
    write,
    "../../../../../../etc/agentloop",
    "asks",
    "refused",
    "refused",
    "runs",
  ],
  ["change a credential", write, "~/.ssh/authorized_keys", "denied", "denied", "denied", "denied"],
  [
    "change a credential through a link",
    write,
    "keys/config",
    "denied",
    "denied",
    "denied",
    "denied",
  ],
];

describe("file tools under each permission mode", () => {
  it.each(MATRIX)("%s", async (_, tool, path, ask, auto, readOnly, yolo) => {
    expect({
      ask: await outcome("ask", tool, path),
      auto: await outcome("auto", tool, path),
      "read-only": await outcome("read-only", tool, path),
      yolo: await outcome("yolo", tool, path),
      // Plan mode judges every file but its plan as read-only mode does.
      plan: await outcome("plan", tool, path),
    }).toEqual({ ask, auto, "read-only": readOnly, yolo, plan: readOnly });
  });

  it("in plan mode, lets the file tools write the plan file, and only it", async () => {
    expect(await outcome("plan", write, planFile)).toBe("runs");
    expect(await outcome("plan", write, join(planFile, "..", "plan.md"))).toBe("runs");
    expect(await outcome("plan", write, join(planFile, "..", "other.md"))).toBe("refused");
    expect(await outcome("read-only", write, planFile)).toBe("refused");
    const check = createPermissionCheck({
      mode: "plan",
      workspace,
      home,
      rules: noRules(),
      planFile: () => planFile,
    });
    expect(await check(call("src/app.ts"), write)).toEqual({
      allowed: false,
      reason: `Permission denied: plan mode changes no file but the plan file, ${planFile}, and "src/app.ts" is not it. Write your plan there, then call exit_plan_mode to ask the user to approve it.`,
    });
  });

  it("judges each call by the mode of the moment when the mode can change", async () => {
    let mode: PermissionMode = "plan";
    const check = createPermissionCheck({ mode: () => mode, workspace, home, rules: noRules() });
    expect((await check(call("src/app.ts"), write)).allowed).toBe(false);
    mode = "auto";
    expect((await check(call("src/app.ts"), write)).allowed).toBe(true);
  });

  it.each([
    ["the system's temp directory", join(tmpdir(), "agentloop-scratch.txt")],
    ["/tmp", "/tmp/agentloop-scratch.txt"],
  ])(
    "on macOS, where Seatbelt leaves %s unwritable, do not change it freely either",
    async (_, path) => {
      expect(await outcome("auto", write, path, "darwin")).toBe("refused");
      expect(await outcome("auto", write, path, "linux")).toBe("runs");
      expect(await outcome("yolo", write, path, "darwin")).toBe("runs");
    },
  );

  it("asks with the diff, names the link's real target, and offers 'always' only inside", async () => {
    const questions: PermissionQuestion[] = [];
    const ask = async (question: PermissionQuestion): Promise<PermissionAnswer> => {
      questions.push(question);
      return "no";
    };
    const check = createPermissionCheck({ mode: "ask", workspace, home, rules: noRules(), ask });
    await check(call("src/app.ts"), write);
    await check(call("out/notes.txt"), write);
    expect(questions[0]).toMatchObject({
      tool: "write",
      action: { kind: "files", paths: ["src/app.ts"] },
      preview: "--- src/app.ts\n+++ src/app.ts\n+new line",
      rules: ["tool:write"],
    });
    // "write would change src/app.ts" would say again what the question says.
    expect(questions[0]?.reason).toBeUndefined();
    expect(questions[1]?.reason).toBe(
      `write would change "out/notes.txt" (a link to ${join(outside, "notes.txt")}), outside the workspace`,
    );
    expect(questions[1]?.rules).toEqual([]);
  });

  it("follows rules naming the tool: deny beats allow, and allow does not reach outside", async () => {
    const rules = { allow: ["tool:write"], ask: [], deny: [] };
    const allowing = createPermissionCheck({ mode: "auto", workspace, home, rules });
    // The approval carries where the path led when judged, for the tool to write there only.
    expect(await allowing(call("src/app.ts"), write)).toEqual({
      allowed: true,
      realPaths: { "src/app.ts": join(realpathSync(workspace), "src", "app.ts") },
    });
    expect((await allowing(call(join(outside, "x")), write)).allowed).toBe(false);
    const denying = createPermissionCheck({
      mode: "yolo",
      workspace,
      home,
      rules: { allow: ["tool:write"], ask: [], deny: ["tool:write"] },
    });
    expect(await denying(call("src/app.ts"), write)).toEqual({
      allowed: false,
      reason: 'Permission denied: write matches the deny rule "tool:write".',
    });
  });
});
