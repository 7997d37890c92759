// The checkpoint before a prompt in a repository of many files, through the built CLI against the
// fake Anthropic server: the request leaves before the work tree's snapshot is taken, the first
// command that may change a file waits for it, and a rewind then takes bash's changes back while
// the person's .git is left exactly as it was (bytes, modes and times).

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { fingerprint, gitRepository } from "./support/git-workspace.js";

/** 5,000 committed files, 100 to a directory. */
function committedFiles(workspace: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let index = 0; index < 5000; index += 1) {
    const directory = `pkg-${Math.floor(index / 100)}`;
    if (index % 100 === 0) mkdirSync(join(workspace, directory));
    files[`${directory}/file-${index % 100}.ts`] = `export const value = ${index};\n`;
  }
  return files;
}

/** Every file's modification time under `directory`, by path. */
function times(directory: string, files: Record<string, string>): Record<string, number> {
  return Object.fromEntries(
    Object.keys(files).map((name) => [name, statSync(join(directory, name)).mtimeMs]),
  );
}

describe("the checkpoint before a prompt in a large repository", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("lets the request leave before the snapshot is taken, holds the first command until it is, and a rewind undoes bash", async () => {
    const sandbox = freshSandbox();
    const committed = committedFiles(sandbox.workspace);
    gitRepository(sandbox.workspace, committed);
    // Files git does not know yet, which the first snapshot must read and store: it takes a while.
    mkdirSync(join(sandbox.workspace, "generated"));
    const chunk = "generated output, not committed yet\n".repeat(450);
    for (let index = 0; index < 2000; index += 1)
      writeFileSync(join(sandbox.workspace, "generated", `out-${index}.txt`), `${index}\n${chunk}`);
    const dotGit = join(sandbox.workspace, ".git");
    const gitBytes = fingerprint(dotGit);
    const gitTimes = times(dotGit, gitBytes);

    const sessionsDirectory = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
    let seenAtFirstRequest: { checkpoint: unknown; snapshot: unknown } | null = null;
    const records = () => onlySession(sandbox).entries.filter((entry) => entry.type === "part");
    model.script(
      [
        reply(
          toolUse("t1", "bash", {
            command:
              "sed -i s/value/VALUE/ pkg-3/file-7.ts && rm pkg-4/file-1.ts && echo new > made.txt",
          }),
        ),
        reply(text("Tidied.")),
      ],
      {
        intercept() {
          if (seenAtFirstRequest === null && existsSync(sessionsDirectory)) {
            const part = records();
            seenAtFirstRequest = {
              checkpoint: part.find((entry) => entry.name === "checkpoint")?.data,
              snapshot: part.find((entry) => entry.name === "snapshot"),
            };
          }
          return undefined;
        },
      },
    );
    const run = await runCli(["--permission-mode", "yolo", "-p", "tidy up"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);

    // The request reached the model while checkpoint 1 was recorded but its snapshot not yet taken.
    expect(seenAtFirstRequest).toEqual({
      checkpoint: expect.objectContaining({ number: 1, tree: null, pending: true }),
      snapshot: undefined,
    });
    // The command ran only once the snapshot was recorded.
    const entries = onlySession(sandbox).entries;
    const snapshotAt = entries.findIndex(
      (entry) => entry.type === "part" && entry.name === "snapshot",
    );
    const resultAt = entries.findIndex((entry) => JSON.stringify(entry).includes('"tool_result"'));
    expect(snapshotAt).toBeGreaterThan(-1);
    expect(resultAt).toBeGreaterThan(snapshotAt);
    expect(entries[snapshotAt]).toMatchObject({
      data: { checkpoint: 1, tree: expect.any(String) },
    });

    const rewind = await runCli(["rewind", "1", "--code", "--output-format", "json"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(rewind.stderr).toBe("");
    expect(rewind.code).toBe(0);
    const result = JSON.parse(rewind.stdout);
    expect(result.restored.sort()).toEqual(["pkg-3/file-7.ts", "pkg-4/file-1.ts"]);
    expect(result.removed).toEqual(["made.txt"]);
    expect(result.left_alone).toEqual([]);
    for (const name of ["pkg-3/file-7.ts", "pkg-4/file-1.ts"])
      expect(readFileSync(join(sandbox.workspace, name), "utf8")).toBe(committed[name]);
    expect(fingerprint(dotGit)).toEqual(gitBytes);
    expect(times(dotGit, gitBytes)).toEqual(gitTimes);
  }, 120_000);
});
