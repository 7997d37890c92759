// A chapter that describes itself once (src/NAME/chapter.ts): the layer checker, the list the
// session is assembled from, --tools and the docs read that description or are held to it here,
// so no hand-kept list can drift from what the chapter really is.

import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { layerOf } from "../scripts/check-layers.js";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import type { PartHost } from "../src/core/part.js";
import { CHAPTER as SCHEDULE } from "../src/schedule/chapter.js";
import { createSchedulePart } from "../src/schedule/part.js";
import { CHAPTER as TEAMS } from "../src/teams/chapter.js";
import { createTeamsPart } from "../src/teams/part.js";
import { chooseTools } from "../src/tools/tool-set.js";

const REPO = resolve(import.meta.dirname, "..");
const DOCS = join(REPO, "docs");

describe("a chapter's description", () => {
  it("puts its folder in the layer of the part it names", () => {
    for (const chapter of [SCHEDULE, TEAMS]) {
      expect(layerOf(chapter.name)).toBeGreaterThanOrEqual(0);
      expect(layerOf(chapter.name)).toBe(layerOf(chapter.layerBeside));
    }
  });

  it("names the tools its part really offers, and its entry in the list passes them on", () => {
    const part = createSchedulePart();
    part.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    const offered = part.tools?.({ mode: "auto", forChild: false }).map((tool) => tool.name);
    expect(offered).toEqual([...SCHEDULE.tools]);
    const entry = SESSION_PARTS.find((candidate) => candidate.name === SCHEDULE.name);
    expect(entry?.tools).toEqual(SCHEDULE.tools);
    const team = createTeamsPart({ env: {}, maxTurns: 10, tools: TEAMS.tools });
    team.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    const itsTools = team.tools?.({ mode: "auto", forChild: false }).map((tool) => tool.name);
    expect(itsTools).toEqual([...TEAMS.tools]);
    expect(SESSION_PARTS.find((candidate) => candidate.name === TEAMS.name)?.tools).toEqual(
      TEAMS.tools,
    );
  });

  it("makes its tools names --tools accepts, in the default set unless a list leaves them out", async () => {
    const where = { workspace: REPO, env: { XDG_CONFIG_HOME: join(REPO, "no-such-config") } };
    const partTools = SESSION_PARTS.flatMap((entry) => entry.tools ?? []);
    const byDefault = await chooseTools({ flag: undefined, partTools, ...where });
    expect(byDefault.partTools).toEqual([...TEAMS.tools, ...SCHEDULE.tools]);
    const named = await chooseTools({ flag: ["bash", "cron_list"], partTools, ...where });
    expect(named).toMatchObject({ names: ["bash"], partTools: ["cron_list"], chosen: true });
    await expect(chooseTools({ flag: ["cron_lists"], partTools, ...where })).rejects.toThrow(
      /unknown tool "cron_lists": choose from .*cron_create, cron_list, cron_delete/,
    );
    const part = createSchedulePart({ tools: named.partTools });
    part.attach?.({ runsQueuedPrompts: () => "when-idle" } as PartHost);
    expect(part.tools?.({ mode: "auto", forChild: false }).map((tool) => tool.name)).toEqual([
      "cron_list",
    ]);
  });

  it("is held to the docs: its page names each tool, the architecture page its folder", () => {
    const pages = readdirSync(DOCS)
      .filter((name) => name.endsWith(".md"))
      .map((name) => readFileSync(join(DOCS, name), "utf8"));
    for (const tool of [...SCHEDULE.tools, ...TEAMS.tools]) {
      expect(
        pages.some((page) => page.includes(`| \`${tool}\``)),
        tool,
      ).toBe(true);
    }
    for (const chapter of [SCHEDULE, TEAMS]) {
      expect(readFileSync(join(DOCS, "architecture.md"), "utf8")).toContain(
        `\`src/${chapter.name}/\``,
      );
    }
  });
});
