// A rewind of the code, on real files in a real git repository and outside one: links come back
// as links (never followed), binary files byte for byte, the executable bit, deleted files, and
// directories created since are removed once empty; files outside the work tree and links the
// file tools changed come back from the saved files.

import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IN_THE_SHELL } from "../src/checkpoints/command-place.js";
import { checkpointData, createRecorder } from "../src/checkpoints/recorder.js";
import {
  appendRecord,
  checkpointEvent,
  leftEvent,
  savedEvent,
} from "../src/checkpoints/records.js";
import { rewindSession } from "../src/checkpoints/rewind.js";
import { gitRepository } from "./support/git-workspace.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A work tree and a session file whose checkpoint 1 is taken, and a step to end the prompt. */
function sessionIn(git: boolean) {
  const root = mkdtempSync(join(tmpdir(), "agentloop-checkpoints-"));
  roots.push(root);
  const work = join(root, "work");
  mkdirSync(work);
  const binary = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
  writeFileSync(join(work, "data.bin"), binary);
  writeFileSync(join(work, "target.txt"), "the target\n");
  writeFileSync(join(work, "script.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(work, "script.sh"), 0o755);
  symlinkSync("target.txt", join(work, "link.txt"));
  if (git) gitRepository(work, {});
  const sessionFile = join(root, "session.jsonl");
  writeFileSync(
    sessionFile,
    `${JSON.stringify({ type: "session", version: 1, id: "s", cwd: work, model: "m", provider: "p", startedAt: new Date().toISOString() })}\n`,
  );
  // The work tree's snapshot store is under agentloop's state directory: a throwaway one here.
  const env = { ...process.env, XDG_STATE_HOME: join(root, "state") };
  const recorder = createRecorder(checkpointData(join(root, "session"), work, env), work);
  appendRecord(
    sessionFile,
    checkpointEvent(recorder.checkpoint(1, "change things"), "prompt", "1"),
  );
  const fileTool = (path: string) => {
    const saved = recorder.saveBefore(path);
    if (saved) appendRecord(sessionFile, savedEvent(saved, "prompt", path));
  };
  const promptEnds = () => {
    const left = recorder.leave();
    if (left) appendRecord(sessionFile, leftEvent(left, "prompt"));
  };
  const rewind = () =>
    rewindSession({
      sessionFile,
      cwd: work,
      env,
      name: "1",
      code: true,
      conversation: false,
      force: false,
      place: IN_THE_SHELL,
    });
  return { root, work, binary, fileTool, promptEnds, rewind };
}

describe("a rewind of the code", () => {
  it("in a git work tree puts back links, binary bytes, the executable bit and deleted files, and removes new directories", () => {
    const { work, binary, promptEnds, rewind } = sessionIn(true);
    // What bash might do: none of it goes through the file tools.
    rmSync(join(work, "link.txt"));
    writeFileSync(join(work, "link.txt"), "no longer a link\n");
    writeFileSync(join(work, "data.bin"), Buffer.from([1, 2, 3]));
    chmodSync(join(work, "script.sh"), 0o644);
    rmSync(join(work, "target.txt"));
    mkdirSync(join(work, "deep", "new"), { recursive: true });
    writeFileSync(join(work, "deep", "new", "file.txt"), "new\n");
    symlinkSync("/etc/passwd", join(work, "outward"));
    promptEnds();

    const result = rewind();
    expect(result.leftAlone).toEqual([]);
    expect(lstatSync(join(work, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(work, "link.txt"))).toBe("target.txt");
    expect(readFileSync(join(work, "data.bin"))).toEqual(binary);
    expect(lstatSync(join(work, "script.sh")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(work, "target.txt"), "utf8")).toBe("the target\n");
    expect(existsSync(join(work, "deep"))).toBe(false);
    // The link was removed, not followed: what it pointed at is untouched.
    expect(lstatSync("/etc/passwd").isFile()).toBe(true);
    expect(existsSync(join(work, "outward"))).toBe(false);
  });

  it("outside git puts back what the file tools changed, a file outside the work tree and a link included", () => {
    const { root, work, fileTool, promptEnds, rewind } = sessionIn(false);
    const outside = join(root, "elsewhere.txt");
    writeFileSync(outside, "outside, before\n");
    for (const path of [outside, join(work, "link.txt"), join(work, "made", "new.txt")])
      fileTool(path);
    writeFileSync(outside, "outside, after\n");
    rmSync(join(work, "link.txt"));
    writeFileSync(join(work, "link.txt"), "replaced by the write tool\n");
    mkdirSync(join(work, "made"));
    writeFileSync(join(work, "made", "new.txt"), "new\n");
    promptEnds();

    const result = rewind();
    expect(result.bashTracked).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe("outside, before\n");
    expect(readlinkSync(join(work, "link.txt"))).toBe("target.txt");
    expect(existsSync(join(work, "made"))).toBe(false);
    expect(existsSync(work)).toBe(true);
  });
});
