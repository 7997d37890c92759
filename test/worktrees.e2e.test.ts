// Subagents in their own git worktrees (issue 43), through the built CLI against the fake
// model, in real git repositories made in temporary directories: where the child's changes
// land, what becomes of a worktree with none, two writers at once, and the refusals.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { resultText, type ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  type FakeModelScriptOptions,
  freshSandbox,
  runStreamJson,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git, withRepository } from "./support/git-repository.js";

type Event = { type: string; [key: string]: unknown };

const WORKTREE_STATUS =
  /\[agent (\S+) [0-9a-f]{4}: completed; [^\]]*; worktree (\S+), branch (agentloop\/\S+), (\d+) files? changed\]$/;

/**
 * A fresh sandbox whose workspace is a git repository with one commit on main; `outsideTmp`
 * puts it under /var/tmp, since in auto mode the file tools may write anywhere in /tmp.
 */
function repository(outsideTmp = false): Sandbox {
  const sandbox = freshSandbox();
  if (outsideTmp) {
    sandbox.workspace = mkdtempSync(join("/var/tmp", "agentloop-worktrees-"));
    const made = sandbox.workspace;
    onTestFinished(() => rmSync(made, { recursive: true, force: true }));
  }
  return withRepository(sandbox);
}

const isolatedCall = (id: string, prompt: string, extra: Record<string, unknown> = {}) =>
  toolUse(id, "agent", { description: "do a piece", prompt, isolation: "worktree", ...extra });
const bash = (id: string, command: string) => toolUse(id, "bash", { command });

/** The children's answers by their prompt: first a command, then a closing text. */
function children(commands: Record<string, string>) {
  return {
    intercept: ({
      firstUserText,
      lastUserText,
    }: {
      firstUserText: string;
      lastUserText: string;
    }) => {
      const command = commands[firstUserText];
      if (command === undefined) return undefined;
      if (lastUserText === firstUserText)
        return reply(bash(`call_${firstUserText.length}`, command));
      return reply(text(`Done: ${firstUserText}`));
    },
  };
}

describe("subagents in git worktrees", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(
    sandbox: Sandbox,
    turns: FakeTurn[],
    args: string[],
    intercept?: FakeModelScriptOptions,
  ) {
    const ran = await runStreamJson(model, sandbox, turns, args, intercept);
    const { result } = ran;
    const events = ran.events as Event[];
    const firstTexts = ran.requests.map((request) => {
      const body = JSON.parse(request.body);
      const first = body.messages[0].content;
      return {
        prompt: typeof first === "string" ? first : first[0].text,
        items: body.messages.length as number,
      };
    });
    const results = events.flatMap((event) =>
      event.type === "tool_end" ? [resultText((event.result as ToolResultBlock).content)] : [],
    );
    return { ...result, events, results, firstTexts };
  }

  /** One isolated child that reads README.md and changes nothing. */
  const runReader = (sandbox: Sandbox) =>
    run(
      sandbox,
      [reply(isolatedCall("call_p1", "Read it.")), reply(text("Read."))],
      ["--permission-mode", "auto", "read it"],
      children({ "Read it.": "cat README.md" }),
    );

  /** The parent's repository is as it was: on main, at its one commit, nothing changed. */
  function expectParentUntouched(workspace: string, head: string) {
    expect(git(workspace, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git(workspace, "rev-parse", "HEAD")).toBe(head);
    expect(git(workspace, "status", "--porcelain")).toBe("");
    expect(existsSync(join(workspace, "out.txt"))).toBe(false);
  }

  it("commits a writing child's file on its own branch, keeps its worktree, and names both in the status line", async () => {
    const sandbox = repository();
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const { code, results, stderr } = await run(
      sandbox,
      [reply(isolatedCall("call_p1", "Write A.")), reply(text("Written."))],
      ["--permission-mode", "auto", "write a"],
      children({ "Write A.": "echo a > out.txt" }),
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const status = WORKTREE_STATUS.exec(results[0] ?? "");
    expect(status, results[0]).not.toBeNull();
    const [, agent, path, branch, files] = status as unknown as string[];
    expect(agent).toBe("general");
    expect(files).toBe("1");
    expect(path).toBe(join(sandbox.workspace, ".agentloop", "worktrees", branch?.slice(10) ?? ""));
    expect(readFileSync(join(path as string, "out.txt"), "utf8")).toBe("a\n");
    expect(git(sandbox.workspace, "show", `${branch}:out.txt`)).toBe("a");
    expect(git(sandbox.workspace, "rev-list", "--count", `main..${branch}`)).toBe("1");
    expect(git(path as string, "status", "--porcelain")).toBe("");
    expectParentUntouched(sandbox.workspace, head);
    expect(readFileSync(join(sandbox.workspace, ".git", "info", "exclude"), "utf8")).toContain(
      "/.agentloop/worktrees\n",
    );
  });

  it("removes the worktree and the branch of a child that changed nothing", async () => {
    const sandbox = repository();
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const { code, results } = await runReader(sandbox);
    expect(code).toBe(0);
    expect(results[0]).toMatch(
      /\[agent general [0-9a-f]{4}: completed; .*; worktree removed: no changes\]$/,
    );
    expect(readdirSync(join(sandbox.workspace, ".agentloop", "worktrees"))).toEqual([]);
    expect(git(sandbox.workspace, "branch", "--list", "agentloop/*")).toBe("");
    expect(git(sandbox.workspace, "worktree", "list").split("\n")).toHaveLength(1);
    expectParentUntouched(sandbox.workspace, head);
  });

  it("runs two writing children at the same time, each in its own worktree", async () => {
    const sandbox = repository();
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const { code, results, firstTexts } = await run(
      sandbox,
      [
        reply(isolatedCall("call_p1", "Write A."), isolatedCall("call_p2", "Write B.")),
        reply(text("Both written.")),
      ],
      ["--permission-mode", "auto", "write both"],
      children({
        "Write A.": "sleep 1; echo from-a > out.txt",
        "Write B.": "sleep 1; echo from-b > out.txt",
      }),
    );
    expect(code).toBe(0);
    // Both children's first requests went out before either one's second: the runs overlapped.
    const order = firstTexts
      .filter((sent) => sent.prompt.startsWith("Write "))
      .map((sent) => `${sent.prompt[6]}${sent.items === 1 ? 1 : 2}`);
    expect(order.slice(0, 2).sort()).toEqual(["A1", "B1"]);
    expect(order.slice(2).sort()).toEqual(["A2", "B2"]);
    const [a, b] = results.map((result) => WORKTREE_STATUS.exec(result) as unknown as string[]);
    expect(a?.[2]).not.toBe(b?.[2]);
    expect(readFileSync(join(a?.[2] as string, "out.txt"), "utf8")).toBe("from-a\n");
    expect(readFileSync(join(b?.[2] as string, "out.txt"), "utf8")).toBe("from-b\n");
    expect(git(sandbox.workspace, "show", `${a?.[3]}:out.txt`)).toBe("from-a");
    expect(git(sandbox.workspace, "show", `${b?.[3]}:out.txt`)).toBe("from-b");
    expectParentUntouched(sandbox.workspace, head);
  });

  it("keeps a child under auto from writing into the parent's tree", async () => {
    const sandbox = repository(true);
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const target = join(sandbox.workspace, "out.txt");
    const { code, events } = await run(
      sandbox,
      [
        reply(isolatedCall("call_p1", "Escape.")),
        reply(
          toolUse("call_c1", "write", { file_path: target, content: "escaped" }),
          bash("call_c2", `echo escaped > ${target}`),
        ),
        reply(text("I could not.")),
        reply(text("It could not.")),
      ],
      ["--permission-mode", "auto", "escape"],
    );
    expect(code).toBe(0);
    const childResults = events.flatMap((event) => {
      const inner = event.event as Event | undefined;
      return event.type === "subagent" && inner?.type === "tool_end"
        ? [inner.result as ToolResultBlock]
        : [];
    });
    expect(childResults.map((result) => result.is_error)).toEqual([true, true]);
    expect(resultText(childResults[0]?.content ?? "")).toContain("Permission denied");
    expectParentUntouched(sandbox.workspace, head);
  });

  it("runs an agent whose definition says isolation: worktree in a worktree without being asked", async () => {
    const sandbox = repository();
    const agents = join(sandbox.workspace, ".claude", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "writer.md"),
      "---\nname: writer\ndescription: Writes files.\nisolation: worktree\n---\nWrite what you are asked.\n",
    );
    git(sandbox.workspace, "add", ".claude");
    git(sandbox.workspace, "commit", "--quiet", "-m", "the writer agent");
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const { code, results } = await run(
      sandbox,
      [
        reply(
          toolUse("call_p1", "agent", {
            description: "write",
            prompt: "Write W.",
            subagent_type: "writer",
          }),
        ),
        reply(text("Written.")),
      ],
      ["--permission-mode", "auto", "write w"],
      children({ "Write W.": "echo w > out.txt" }),
    );
    expect(code).toBe(0);
    const status = WORKTREE_STATUS.exec(results[0] ?? "") as unknown as string[];
    expect(status?.[1]).toBe("writer");
    expect(git(sandbox.workspace, "show", `${status?.[3]}:out.txt`)).toBe("w");
    expectParentUntouched(sandbox.workspace, head);
  });

  it("says in the result that a child started from HEAD when the parent's tree has uncommitted changes", async () => {
    const sandbox = repository();
    writeFileSync(join(sandbox.workspace, "README.md"), "# project, being edited\n");
    const { code, results } = await runReader(sandbox);
    expect(code).toBe(0);
    expect(results[0]).toMatch(
      /\nThe parent's tree has uncommitted changes: the agent started from HEAD [0-9a-f]{7}, without them\.$/,
    );
    expect(readFileSync(join(sandbox.workspace, "README.md"), "utf8")).toBe(
      "# project, being edited\n",
    );
  });

  it("refuses isolation outside a git repository in one sentence", async () => {
    const sandbox = freshSandbox();
    const { code, events } = await run(
      sandbox,
      [reply(isolatedCall("call_p1", "Write A.")), reply(text("It cannot."))],
      ["--permission-mode", "auto", "write a"],
    );
    expect(code).toBe(0);
    const result = events.find((event) => event.type === "tool_end")?.result as ToolResultBlock;
    expect(result.is_error).toBe(true);
    expect(resultText(result.content)).toBe(
      `isolation "worktree" needs a git repository, and ${sandbox.workspace} is not in one.`,
    );
    expect(existsSync(join(sandbox.workspace, ".agentloop"))).toBe(false);
  });
});
