// `agentloop rewind` on a checkpoint store that was deleted, or whose objects were damaged: one
// sentence and exit code 1, nothing rewound, and no checkpoint of its own left behind (a rewind
// that failed half-way used to leave one that never finished, at each try).

import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { gitRepository } from "./support/git-workspace.js";

describe("agentloop rewind on a broken checkpoint store", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const cli = (sandbox: Sandbox, args: string[]) =>
    runCli(args, { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace });

  /** A session in a git repository whose one prompt wrote a file; its session directory. */
  async function sessionWithCheckpoint(sandbox: Sandbox): Promise<string> {
    gitRepository(sandbox.workspace, { "kept.txt": "as committed\n" });
    model.script([
      reply(toolUse("t1", "write", { file_path: "made.txt", content: "by the agent\n" })),
      reply(text("Made it.")),
    ]);
    const run = await cli(sandbox, ["--permission-mode", "yolo", "-p", "make a file"]);
    expect(run.code).toBe(0);
    const sessions = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
    const id = readdirSync(sessions)
      .find((name) => name.endsWith(".jsonl"))
      ?.slice(0, -6);
    return join(sessions, id as string);
  }

  /** Every object file of a git directory, overwritten with bytes git cannot read. */
  function damageObjects(gitDirectory: string) {
    const objects = join(gitDirectory, "objects");
    for (const entry of readdirSync(objects, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && /^[0-9a-f]{38}$/.test(entry.name)) {
        writeFileSync(path, "not a git object");
      }
    }
  }

  /** The work tree's store of snapshots, shared by its sessions, under the state directory. */
  function storeOf(sandbox: Sandbox): string {
    const stores = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "checkpoints");
    const [only] = readdirSync(stores).filter((name) => name.endsWith(".git"));
    return join(stores, only as string);
  }

  it.each([
    ["deleted", (sandbox: Sandbox) => rmSync(storeOf(sandbox), { recursive: true })],
    ["damaged", (sandbox: Sandbox) => damageObjects(storeOf(sandbox))],
  ])(
    "says so in one sentence when the store was %s, and leaves no checkpoint behind",
    async (_, breakStore) => {
      const sandbox = freshSandbox();
      const directory = await sessionWithCheckpoint(sandbox);
      const sessionFile = `${directory}.jsonl`;
      breakStore(sandbox);
      const before = readFileSync(sessionFile, "utf8");

      for (let attempt = 0; attempt < 2; attempt++) {
        const rewind = await cli(sandbox, ["rewind", "1"]);
        expect(rewind.code).toBe(1);
        expect(rewind.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(
            /^agentloop: The checkpoints of this session cannot be read \(their store, .*checkpoints\/work-[0-9a-f]+\.git, was deleted or damaged\), so nothing was rewound; agentloop rewind 1 --conversation still takes the conversation back\.$/,
          ),
        ]);
      }
      // Nothing was recorded, and the file the agent made is still there.
      expect(readFileSync(sessionFile, "utf8")).toBe(before);
      expect(readFileSync(join(sandbox.workspace, "made.txt"), "utf8")).toBe("by the agent\n");
      const list = await cli(sandbox, ["rewind", "--list"]);
      expect(list.code).toBe(0);
      expect(list.stdout.trim().split("\n")).toHaveLength(1);
      expect(list.stdout + list.stderr).not.toMatch(/did not finish/);
    },
  );
});
