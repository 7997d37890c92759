// The memory's pieces on their own: the budget of the index's head, the line format a person
// may edit, what a consolidation answer keeps, who may turn memory on, and writes that come at
// the same time. Real files in a temporary directory.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { applyConsolidation } from "../src/memory/consolidation.js";
import { entryLine, type MemoryEntry, parseTopicFile } from "../src/memory/entry.js";
import { parseProposals } from "../src/memory/extraction.js";
import { startMemoryPart } from "../src/memory/part.js";
import { INDEX_BUDGET, indexHead } from "../src/memory/prompt-section.js";
import { chooseMemory } from "../src/memory/settings.js";
import { openMemoryStore } from "../src/memory/store.js";

const directories: string[] = [];
function temporary(): string {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-memory-"));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const entry = (id: string, pinned = false): MemoryEntry => ({
  id,
  topic: "project",
  text: `entry ${id}`,
  made: "2026-12-04T10:00:00Z",
  session: "s1",
  pinned,
});

describe("the head of the index", () => {
  it("stops at 200 lines", () => {
    const index = Array.from({ length: 250 }, (_, n) => `- line ${n}`).join("\n");
    const head = indexHead(index);
    expect(head).toMatchObject({ lines: 200, cut: 50 });
    expect(head.text.split("\n").at(-1)).toBe("- line 199");
  });

  it("stops at 25 KB first when the lines are long, and cuts no line in two", () => {
    const long = "x".repeat(499);
    const index = Array.from({ length: 100 }, () => long).join("\n");
    const head = indexHead(index);
    expect(head.bytes).toBeLessThanOrEqual(INDEX_BUDGET.bytes);
    expect(head.lines).toBe(50);
    expect(head.text.split("\n").every((line) => line === long)).toBe(true);
  });
});

describe("a topic file", () => {
  it("reads back what agentloop wrote, when and in which session", () => {
    const written = entry("m1a2b3", true);
    expect(parseTopicFile("project", `# project\n\n${entryLine(written)}\n`)).toEqual([written]);
  });

  it("takes a line a person wrote by hand as a pinned entry with a stable id", () => {
    const [first] = parseTopicFile("project", "- The CI runs on Fridays.\nnot an entry\n");
    const [again] = parseTopicFile("project", "- The CI runs on Fridays.\n");
    expect(first).toMatchObject({ text: "The CI runs on Fridays.", pinned: true, made: "" });
    expect(first?.id).toBe(again?.id);
  });
});

describe("an extraction's answer", () => {
  it("gives one proposal per REMEMBER line with a topic that can be a file name", () => {
    const answer = "Sure.\n- REMEMBER Build Tools: make, not ninja.\nREMEMBER ???: no\nremember x:";
    expect(parseProposals(answer)).toEqual([{ topic: "build-tools", text: "make, not ninja." }]);
  });
});

describe("a consolidation's answer", () => {
  it("keeps a pinned entry it does not name", () => {
    const made = { session: "s2", at: "2026-12-04T11:00:00Z" };
    const result = applyConsolidation(
      [entry("m1", true), entry("m2")],
      "NEW project: merged",
      made,
    );
    expect(result?.entries.map((each) => each.text)).toEqual(["entry m1", "merged"]);
    expect(result).toMatchObject({ kept: 1, merged: 1, dropped: 1 });
  });

  it("changes nothing when it names no entry agentloop can read", () => {
    const made = { session: "s2", at: "2026-12-04T11:00:00Z" };
    expect(applyConsolidation([entry("m1")], "I merged them all.", made)).toBeNull();
  });
});

describe("who turns memory on", () => {
  function places() {
    const root = temporary();
    const env = { XDG_CONFIG_HOME: join(root, "config") };
    const workspace = join(root, "work");
    mkdirSync(join(env.XDG_CONFIG_HOME, "agentloop"), { recursive: true });
    mkdirSync(join(workspace, ".agentloop"), { recursive: true });
    const user = (value: unknown) =>
      writeFileSync(
        join(env.XDG_CONFIG_HOME, "agentloop", "settings.json"),
        JSON.stringify({ memory: value }),
      );
    const project = (value: unknown) =>
      writeFileSync(
        join(workspace, ".agentloop", "settings.json"),
        JSON.stringify({ memory: value }),
      );
    return { env, workspace, user, project };
  }

  it("is not a repository's settings, which are said to be not followed", async () => {
    const { env, workspace, project } = places();
    project(true);
    const notices: string[] = [];
    const choice = await chooseMemory({
      flag: false,
      workspace,
      env,
      notice: (sentence) => notices.push(sentence),
    });
    expect(choice).toBe("off");
    expect(notices).toEqual([expect.stringContaining("is not followed")]);
  });

  it('is the person\'s settings, true or "ask", or --memory; anything else is one sentence', async () => {
    const { env, workspace, user } = places();
    const choose = (flag: boolean) => chooseMemory({ flag, workspace, env, notice: () => {} });
    expect(await choose(true)).toBe("on");
    user("ask");
    expect(await choose(true)).toBe("ask");
    user("yes");
    await expect(choose(false)).rejects.toThrow(ConfigError);
    await expect(choose(false)).rejects.toThrow('must be true, false or "ask"');
  });
});

describe("the store", () => {
  it("keeps every entry of writes that come at the same time", async () => {
    const directory = temporary();
    const store = openMemoryStore({ directory, cwd: directory, redact: (text) => text });
    const topics = ["a", "b", "a", "c", "b", "a"];
    await Promise.all(topics.map((topic, n) => store.add(topic, `fact ${n}`, { session: "s" })));
    expect(
      store
        .entries()
        .map((each) => each.text)
        .sort(),
    ).toEqual(topics.map((_, n) => `fact ${n}`));
  });
});

describe("the memory part", () => {
  it("offers its tool to the session, not to a subagent", async () => {
    const root = temporary();
    const part = await startMemoryPart({
      cwd: root,
      env: { XDG_CONFIG_HOME: join(root, "config"), XDG_STATE_HOME: join(root, "state") },
      flag: true,
      redact: (text) => text,
      noticeAtStart: () => {},
      notice: () => {},
    });
    expect(part?.tools?.({ mode: "ask", forChild: false }).map((tool) => tool.name)).toEqual([
      "memory",
    ]);
    expect(part?.tools?.({ mode: "ask", forChild: true })).toEqual([]);
  });
});
