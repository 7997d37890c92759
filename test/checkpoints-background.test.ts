// The checkpoints part on a real git work tree, its snapshots taken in the background: a read-only
// call goes ahead while the snapshot is taken, a call that may change a file waits for it, a
// /rewind entered while snapshots are still being taken waits for them, and a file whose blob a
// `git gc` pruned from the person's objects is named and left alone rather than failing the rewind.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCheckpointsPart } from "../src/checkpoints/part.js";
import type { PartHost, SessionPart } from "../src/core/part.js";
import type { Tool } from "../src/core/tool.js";
import { git, gitRepository } from "./support/git-workspace.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A committed work tree, with `untracked` files of 16 KiB that its first snapshot must store. */
function workTree(untracked: number) {
  const root = mkdtempSync(join(tmpdir(), "agentloop-background-"));
  roots.push(root);
  const work = join(root, "work");
  mkdirSync(work);
  gitRepository(work, { "kept.txt": "as committed\n" });
  writeUntracked(work, "generated", untracked);
  return { root, work };
}

function writeUntracked(work: string, directory: string, count: number): void {
  mkdirSync(join(work, directory), { recursive: true });
  const chunk = "x".repeat(16 * 1024);
  for (let index = 0; index < count; index += 1)
    writeFileSync(join(work, directory, `file-${index}.txt`), `${index}${chunk}`);
}

/** The checkpoints part of a session in `root`, attached to a host that knows only its directory. */
function checkpointsPart(root: string, work: string): SessionPart {
  const env = { ...process.env, XDG_STATE_HOME: join(root, "state") };
  const directory = join(root, "sessions", "s");
  mkdirSync(join(root, "sessions"));
  const header = { type: "session", version: 1, id: "s", cwd: work, model: "m", provider: "p" };
  writeFileSync(
    `${directory}.jsonl`,
    `${JSON.stringify({ ...header, startedAt: new Date().toISOString() })}\n`,
  );
  const part = createCheckpointsPart({ cwd: work, env });
  part.attach?.({ directory: () => directory, replaceHistory: () => {} } as unknown as PartHost);
  part.historyStarted?.("startup", []);
  return part;
}

const records = (root: string) =>
  readFileSync(join(root, "sessions", "s.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { name?: string });
const snapshots = (root: string) => records(root).filter((entry) => entry.name === "snapshot");

const signal = new AbortController().signal;
const call = (name: string) => ({ type: "tool_use" as const, id: name, name, input: {} });
const tool = (readOnly: boolean) => ({ isReadOnly: () => readOnly }) as unknown as Tool;
const stop = { type: "stop" as const, reason: "end_turn" as const, detail: "", finalText: "" };
/** /rewind with `argument`, code only: the conversation is another test's. */
const rewind = (part: SessionPart, argument: string) =>
  part.commands?.find((command) => command.name === "/rewind")?.run(argument);

describe("checkpoints taken in the background", () => {
  it("let a read-only call go ahead and hold a call that may change a file until the snapshot is taken", async () => {
    const { root, work } = workTree(600);
    const part = checkpointsPart(root, work);
    expect(await part.screenPrompt?.("look around", signal)).toBeNull();
    await part.toolHooks?.beforeCall(call("read"), signal, tool(true));
    expect(snapshots(root)).toEqual([]);
    await part.toolHooks?.beforeCall(call("bash"), signal, tool(false));
    expect(snapshots(root)).toEqual([
      expect.objectContaining({ data: { checkpoint: 1, tree: expect.any(String) } }),
    ]);
    await part.close?.();
  }, 60_000);

  it("make a /rewind entered while snapshots are still being taken wait for them", async () => {
    const { root, work } = workTree(300);
    const part = checkpointsPart(root, work);
    await part.screenPrompt?.("make a mess", signal);
    await part.toolHooks?.beforeCall(call("bash"), signal, tool(false));
    // What bash might do: change a committed file and write many new ones.
    writeFileSync(join(work, "kept.txt"), "changed by bash\n");
    writeUntracked(work, "mess", 600);
    // The prompt stops; how it left the files is still being taken when /rewind comes.
    part.eventsAfter?.(stop);

    const preview = await rewind(part, "1 code");
    expect(preview).toMatch(/restore +kept\.txt/);
    expect(preview).not.toMatch(/did not finish/);
    expect(await rewind(part, "1 code")).toMatch(/restored +kept\.txt/);
    expect(readFileSync(join(work, "kept.txt"), "utf8")).toBe("as committed\n");
    expect(git(work, "status", "--porcelain", "--untracked-files=all", "mess")).toBe("");
    await part.close?.();
  }, 60_000);

  it("name and leave alone a file whose committed blob git gc pruned", async () => {
    const { root, work } = workTree(0);
    const part = checkpointsPart(root, work);
    await part.screenPrompt?.("change it", signal);
    await part.toolHooks?.beforeCall(call("bash"), signal, tool(false));
    writeFileSync(join(work, "kept.txt"), "changed by bash\n");
    part.eventsAfter?.(stop);
    await part.close?.();
    // The person's history is rewritten and pruned: the committed blob is gone.
    const blob = git(work, "rev-parse", "HEAD:kept.txt").trim();
    rmSync(join(work, ".git", "objects", blob.slice(0, 2), blob.slice(2)));

    await rewind(part, "1 code");
    const done = await rewind(part, "1 code");
    expect(done).toMatch(/left alone +kept\.txt \(its snapshot is gone: git gc pruned/);
    expect(readFileSync(join(work, "kept.txt"), "utf8")).toBe("changed by bash\n");
  }, 60_000);
});
