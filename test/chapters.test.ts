// A chapter that describes itself once (src/NAME/chapter.ts), spread into its entry of the list
// the session is assembled from (SESSION_PARTS): the layer checker, --tools, the command line's
// flags, --help and the docs read that description or are held to it here, so no hand-kept list can drift from what the chapter
// really is. And the rule the descriptions serve: a chapter reaches at most three files of src/
// outside its folder.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { LAYERS, layerOf } from "../scripts/check-layers.js";
import { AGENT_TOOL } from "../src/agents/agent-tool.js";
import { CHAPTER as AGENTS } from "../src/agents/chapter.js";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import { parseCommandLine, USAGE } from "../src/command-line/config.js";
import type { ChapterFlag } from "../src/core/chapter-flags.js";
import type { PartHost, SessionPart } from "../src/core/part.js";
import { heldPart, USER_ONLY_KEYS } from "../src/core/project-settings.js";
import { startLspPart } from "../src/lsp/part.js";
import { CHAPTER as PLANNING } from "../src/planning/chapter.js";
import { createTodoList } from "../src/planning/todo-list.js";
import { createTodoWriteTool } from "../src/planning/todo-write.js";
import { createPluginsPart } from "../src/plugins/part.js";
import { CHAPTER as SCHEDULE } from "../src/schedule/chapter.js";
import { createSchedulePart } from "../src/schedule/part.js";
import { CHAPTER as SKILLS } from "../src/skills/chapter.js";
import { createLoadedSkills } from "../src/skills/loaded-skills.js";
import { createSkillTool } from "../src/skills/skill-tool.js";
import { CHAPTER as TASKS } from "../src/tasks/chapter.js";
import { startTasksPart } from "../src/tasks/start.js";
import { CHAPTER as TEAMS } from "../src/teams/chapter.js";
import { createTeamsPart } from "../src/teams/part.js";
import { chooseTools } from "../src/tools/tool-set.js";
import { CHAPTER as WEB } from "../src/web/chapter.js";
import { WEB_FETCH } from "../src/web/fetch-gate.js";
import { WEB_SEARCH } from "../src/web/web-search.js";

const REPO = resolve(import.meta.dirname, "..");
const SRC = join(REPO, "src");
const DOCS = join(REPO, "docs");

interface Chapter {
  name: string;
  layerBeside: string;
  tools: readonly string[];
  inDefaultSetOf?: "hosted models" | "local models" | "no model";
  buildsOn?: readonly string[];
  flags?: readonly ChapterFlag[];
  userOnlySettings?: readonly string[];
}

/** Every chapter that describes itself, found by its file, not by the list it is held to. */
const described: Chapter[] = await Promise.all(
  readdirSync(SRC)
    .filter((folder) => existsSync(join(SRC, folder, "chapter.ts")))
    .map(async (folder) => {
      const file = pathToFileURL(join(SRC, folder, "chapter.ts")).href;
      return ((await import(file)) as { CHAPTER: Chapter }).CHAPTER;
    }),
);

const offeredBy = (part: SessionPart | null) =>
  part?.tools?.({ mode: "auto", forChild: false }).map((tool) => tool.name) ?? [];

/** A workspace whose person's settings are `settings`. */
function where(settings: Record<string, unknown> = {}) {
  const root = mkdtempSync(join(tmpdir(), "agentloop-chapters-"));
  mkdirSync(join(root, "config", "agentloop"), { recursive: true });
  writeFileSync(join(root, "config", "agentloop", "settings.json"), JSON.stringify(settings));
  const env = { HOME: root, XDG_CONFIG_HOME: join(root, "config"), XDG_STATE_HOME: root };
  return { workspace: root, cwd: root, env };
}

describe("a chapter's description", () => {
  it("is found for the chapters that have one, each named as its folder", () => {
    // Every entry of the list but checkpoints, whose place in the checker's layers is the one
    // the chapters above the session name.
    const partsWithoutOne = SESSION_PARTS.map((entry) => entry.name).filter(
      (name) => name !== "checkpoints",
    );
    expect(described.map((chapter) => chapter.name).sort()).toEqual(partsWithoutOne.sort());
    for (const chapter of described) {
      expect(existsSync(join(SRC, chapter.name, "chapter.ts")), chapter.name).toBe(true);
    }
  });

  it("is spread into its one entry of the session's list", () => {
    for (const chapter of described) {
      const entries = SESSION_PARTS.filter((entry) => entry.name === chapter.name);
      expect(entries, chapter.name).toHaveLength(1);
      expect(entries[0], chapter.name).toMatchObject(chapter);
    }
  });

  it("puts its folder in the layer of the part it names, and only there", () => {
    for (const chapter of described) {
      expect(LAYERS.flat(), chapter.name).not.toContain(chapter.name);
      expect(layerOf(chapter.layerBeside), chapter.name).toBeGreaterThanOrEqual(0);
      expect(layerOf(chapter.name), chapter.name).toBe(layerOf(chapter.layerBeside));
    }
  });

  it("names the tools its part really offers", async () => {
    const schedule = createSchedulePart();
    schedule.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    expect(offeredBy(schedule)).toEqual([...SCHEDULE.tools]);
    const tasks = await startTasksPart({ tools: TASKS.tools, ...where() });
    expect(offeredBy(tasks)).toEqual([...TASKS.tools]);
    expect(createPluginsPart(where()).tools).toBeUndefined();
    const team = createTeamsPart({ env: {}, maxTurns: 10 });
    team.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    expect(offeredBy(team)).toEqual([...TEAMS.tools]);
    const typescript = { command: "tsc", extensionToLanguage: { ".ts": "typescript" } };
    const lsp = await startLspPart(where({ lspServers: { typescript } }));
    expect(lsp).not.toBeNull();
    expect(lsp?.tools).toBeUndefined();
    // The others' tools are each made by one file of the chapter, which names it.
    expect(PLANNING.tools).toEqual([createTodoWriteTool(createTodoList()).name]);
    expect(SKILLS.tools).toEqual([createSkillTool([], createLoadedSkills([])).name]);
    expect(AGENTS.tools).toEqual([AGENT_TOOL]);
    expect(WEB.tools).toEqual([WEB_FETCH, WEB_SEARCH]);
    const checked = ["schedule", "tasks", "teams", "plugins", "lsp"];
    checked.push("planning", "skills", "agents", "web");
    const unchecked = described.filter((chapter) => !checked.includes(chapter.name));
    for (const chapter of unchecked) {
      // A chapter added later is held here once it offers tools; until then it says it has none.
      expect(chapter.tools, chapter.name).toEqual([]);
    }
  });

  it("makes its tools names --tools accepts, in the default set of the models it says", async () => {
    const chapters = SESSION_PARTS;
    const place = where();
    for (const model of ["hosted models", "local models"] as const) {
      const localModel = model === "local models";
      const byDefault = await chooseTools({ flag: undefined, chapters, localModel, ...place });
      const expected = described.flatMap((chapter) =>
        (chapter.inDefaultSetOf ?? model) === model ? chapter.tools : [],
      );
      expect([...byDefault.partTools].sort(), model).toEqual([...expected].sort());
    }
    const hosted = await chooseTools({ flag: undefined, chapters, ...place });
    expect(hosted.partTools).toEqual(expect.arrayContaining([...SCHEDULE.tools, "agent"]));
    expect(hosted.partTools).not.toContain(TASKS.tools[0]);
    const flag = ["bash", "cron_list", "task_get"];
    const named = await chooseTools({ flag, chapters, ...place });
    expect(named).toMatchObject({ names: ["bash"], partTools: ["cron_list", "task_get"] });
    await expect(chooseTools({ flag: ["cron_lists"], chapters, ...place })).rejects.toThrow(
      /unknown tool "cron_lists": choose from bash, read, write, edit, todo_write, .*, cron_delete\./,
    );
    const part = createSchedulePart({ tools: named.partTools });
    part.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    expect(offeredBy(part)).toEqual(["cron_list"]);
  });

  it("lists its flags in --help, each once, and the command line hands their values to its part", () => {
    const lines = USAGE.split("\n");
    const flags = described.flatMap((chapter) => chapter.flags ?? []);
    expect(flags.map((flag) => flag.name)).toEqual(
      expect.arrayContaining(["memory", "teams", "goal", "goal-model", "goal-max-turns"]),
    );
    for (const flag of flags) {
      // Its own line, and no other flag's, built in or a chapter's, starts with its name.
      const named = lines.flatMap((line, index) =>
        new RegExp(`^  --${flag.name}(?: \\S+)? `).test(line) ? [index] : [],
      );
      expect(named, flag.name).toHaveLength(1);
      const at = named[0] as number;
      // Its help in the options' column, each line of it under the first.
      const help = lines.slice(at, at + flag.help.length).map((line) => line.slice(33));
      expect(help, flag.name).toEqual([...flag.help]);
      expect(lines[at]?.slice(0, 33).trim(), flag.name).toBe(
        flag.valueName ? `--${flag.name} ${flag.valueName}` : `--${flag.name}`,
      );
      const argv = flag.kind === "boolean" ? [`--${flag.name}`] : [`--${flag.name}`, "3"];
      const expected =
        flag.kind === "boolean" ? true : (flag.check?.("3", `--${flag.name}`) ?? "3");
      const { flags: given } = parseCommandLine(argv, "/p") as { flags: Record<string, unknown> };
      expect(given, flag.name).toEqual({ [flag.name]: expected });
    }
  });

  it("names the settings keys only the person's own file may set, which core and the docs hold", () => {
    // The keys core keeps for itself: what lets a project's settings and .env in, and the sandbox.
    const cores = ["allowProjectSettings", "allowProjectDotenv", "sandbox"];
    const chapters = described.flatMap((chapter) => chapter.userOnlySettings ?? []);
    expect(chapters).toEqual(expect.arrayContaining(["memory", "teams", "webFetch"]));
    expect([...USER_ONLY_KEYS].sort()).toEqual([...cores, ...chapters].sort());
    // A project's file that sets one asks no approval: it would be ignored anyway.
    for (const key of chapters) expect(heldPart({ [key]: true }), key).toEqual({});
    const safety = readFileSync(join(DOCS, "safety.md"), "utf8");
    const start = safety.indexOf("Some keys only your own settings may set");
    const paragraph = safety.slice(start, safety.indexOf("\n\n", start));
    for (const key of USER_ONLY_KEYS) expect(paragraph, key).toContain(`\`${key}\``);
  });

  it("is held to the docs: the tools page's table names each tool and its default set", () => {
    const table = readFileSync(join(DOCS, "tools.md"), "utf8");
    const architecture = readFileSync(join(DOCS, "architecture.md"), "utf8");
    for (const chapter of described) {
      for (const tool of chapter.tools) {
        const row = table.split("\n").find((line) => line.startsWith(`| \`${tool}\` `));
        const cells = row?.split("|").map((cell) => cell.trim());
        expect(cells?.[2], tool).toContain(`\`src/${chapter.name}/\``);
        expect(cells?.[3], tool).toMatch(new RegExp(`^${chapter.inDefaultSetOf ?? "every model"}`));
      }
      expect(architecture, chapter.name).toContain(`\`src/${chapter.name}/\``);
    }
  });
});

/** Every .ts file under `directory`. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The files of src/ outside `folder` that import a file of it. */
function reachedFrom(folder: string): string[] {
  const inside = join(SRC, folder) + sep;
  // A later chapter built on this one imports it from its own folder: that is its reach.
  const builtOnIt = described
    .filter((chapter) => chapter.buildsOn?.includes(folder))
    .map((chapter) => join(SRC, chapter.name) + sep);
  const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
  return sourceFiles(SRC).filter((file) => {
    if (file.startsWith(inside)) return false;
    if (builtOnIt.some((later) => file.startsWith(later))) return false;
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(IMPORT)].some((match) =>
      resolve(dirname(file), match[1] as string).startsWith(inside),
    );
  });
}

/**
 * Chapters older than the rule, and how many files they reach now: the count may only go down.
 * Their front ends (the REPL, ACP, the viewer) still show what they keep by importing them.
 */
const WIDER_THAN_THE_RULE: Record<string, number> = {
  planning: 7,
  skills: 11,
  hooks: 7,
  background: 8,
  mcp: 6,
};

describe("a chapter's reach", () => {
  it("is at most three files of src/ outside its folder (older chapters: no more than now)", () => {
    for (const chapter of described) {
      const reached = reachedFrom(chapter.name).map((file) => relative(SRC, file));
      const most = WIDER_THAN_THE_RULE[chapter.name] ?? 3;
      const said = `${chapter.name} reaches ${reached.join(", ")}`;
      expect(reached.length, said).toBeLessThanOrEqual(most);
    }
  });

  it("leaves the command line and the session options alone: a chapter declares its own flags", () => {
    for (const chapter of described) {
      const reached = reachedFrom(chapter.name).map((file) => relative(SRC, file));
      expect(reached, chapter.name).not.toContain(join("command-line", "config.ts"));
      expect(reached, chapter.name).not.toContain(join("assembly", "session-options.ts"));
    }
  });

  it("for plugins, is the list and the command's door: the parts that read its folders import none of it", () => {
    expect(
      reachedFrom("plugins")
        .map((file) => relative(SRC, file))
        .sort(),
    ).toEqual([join("assembly", "parts.ts"), "cli.ts"]);
  });
});
