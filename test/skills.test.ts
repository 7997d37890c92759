// The parts of skills and commands on their own: frontmatter, argument substitution, the
// catalog's budget, discovery and its precedence, and the loaded skills restated after a
// compaction.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitWords, substituteArguments } from "../src/skills/arguments.js";
import { catalogBudget, catalogSection } from "../src/skills/catalog.js";
import { findSkills } from "../src/skills/find-skills.js";
import { parseFrontmatter } from "../src/skills/frontmatter.js";
import { invocationOf } from "../src/skills/invocation.js";
import { createLoadedSkills, RESTATED_HEADING } from "../src/skills/loaded-skills.js";
import type { Skill } from "../src/skills/skill.js";
import { createSkillTool } from "../src/skills/skill-tool.js";
import { skillsInHistory } from "../src/skills/skills-in-history.js";

function put(root: string, path: string, content: string) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function places() {
  const root = mkdtempSync(join(tmpdir(), "agentloop-skills-"));
  const home = join(root, "home");
  const repository = join(root, "repo");
  const cwd = join(repository, "packages", "web");
  mkdirSync(join(repository, ".git"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home);
  return { home, repository, cwd, where: { cwd, env: { HOME: home } } };
}

const skill = (name: string, description: string): Skill => ({
  kind: "skill",
  name,
  description,
  modelInvocable: true,
  file: `/work/.agentloop/skills/${name}/SKILL.md`,
  directory: `/work/.agentloop/skills/${name}`,
  scope: "project",
  body: "",
  ignored: [],
});

describe("frontmatter", () => {
  it("reads plain, quoted, boolean, folded and list fields, and the body after it", () => {
    const parsed = parseFrontmatter(
      [
        "---",
        "name: review",
        'description: "Review: the diff"',
        "disable-model-invocation: true",
        "notes: >",
        "  one",
        "  two",
        "allowed-tools:",
        "  - Read",
        "  - Bash(git diff:*)",
        "---",
        "Body $ARGUMENTS",
      ].join("\n"),
    );
    expect(parsed).toEqual({
      fields: {
        name: "review",
        description: "Review: the diff",
        "disable-model-invocation": true,
        notes: "one two",
        "allowed-tools": ["Read", "Bash(git diff:*)"],
      },
      written: {
        name: "review",
        description: "Review: the diff",
        "disable-model-invocation": "true",
        notes: ">",
      },
      body: "Body $ARGUMENTS",
    });
  });

  it("reads a file written with CRLF line ends", () => {
    expect(parseFrontmatter("---\r\ndescription: Windows\r\n---\r\nBody.\r\n")).toMatchObject({
      fields: { description: "Windows" },
      body: "Body.\r\n",
    });
  });

  it("drops a YAML comment after a plain value, keeps a # inside quotes, and skips a BOM", () => {
    const parsed = parseFrontmatter(
      '\uFEFF---\nname: review # the team\'s\ndescription: "Use # for headings"\n---\nBody.',
    );
    expect(parsed).toMatchObject({
      fields: { name: "review", description: "Use # for headings" },
      body: "Body.",
    });
  });

  it("takes a file without frontmatter as all body, and names an unclosed one", () => {
    expect(parseFrontmatter("Just text.")).toEqual({ fields: {}, written: {}, body: "Just text." });
    expect(parseFrontmatter("---\nname: x\n")).toBe(
      "the frontmatter's opening --- has no closing ---",
    );
  });
});

describe("arguments", () => {
  it("puts the whole text for $ARGUMENTS and the shell's words for $1...$9", () => {
    const body = 'Fix issue $1 ("$2") with priority $3; all: $ARGUMENTS';
    expect(substituteArguments(body, `123 "login page" high`)).toBe(
      'Fix issue 123 ("login page") with priority high; all: 123 "login page" high',
    );
  });

  it("leaves a missing word empty and $10 alone", () => {
    expect(substituteArguments("[$1] [$2] $10", "only")).toBe("[only] [] $10");
  });

  it("appends the arguments to a body that has no place for them, as Claude Code does", () => {
    expect(substituteArguments("Review the change.", "src/app.ts")).toBe(
      "Review the change.\n\nARGUMENTS: src/app.ts",
    );
    expect(substituteArguments("Review the change.", "")).toBe("Review the change.");
  });

  it("splits words as a shell does", () => {
    expect(splitWords(`a 'b c' "d \\"e\\"" f`)).toEqual(["a", "b c", 'd "e"', "f"]);
  });
});

describe("the catalog", () => {
  const place = { cwd: "/work", home: "/home/me", budget: 10_000 };

  it("lists each skill the model may load with its description and path", () => {
    const userOnly = { ...skill("deploy", "Ship it"), modelInvocable: false };
    expect(catalogSection([skill("review", "Review a diff"), userOnly], place)).toBe(
      [
        "Skills (call the skill tool to load one when the task matches its description, before you start):",
        "- review: Review a diff (.agentloop/skills/review/SKILL.md)",
      ].join("\n"),
    );
  });

  it("is left out when no skill may be loaded by the model", () => {
    expect(catalogSection([], place)).toBeNull();
  });

  it("cuts the long descriptions to fit the budget, never the names", () => {
    const skills = [
      skill("short", "Brief."),
      ...Array.from({ length: 20 }, (_, index) => skill(`long-${index}`, "word ".repeat(100))),
    ];
    const budget = catalogBudget(200_000);
    expect(budget).toBe(8_000);
    const section = catalogSection(skills, { ...place, budget }) as string;
    expect(section.length).toBeLessThanOrEqual(budget);
    expect(section).toContain("- short: Brief. (");
    for (let index = 0; index < 20; index++) expect(section).toContain(`- long-${index}: word`);
    expect(section).toContain("…");
  });

  it("keeps every name even when the budget holds nothing more", () => {
    const section = catalogSection([skill("a", "x".repeat(50)), skill("b", "y")], {
      ...place,
      budget: 10,
    });
    expect(section).toContain("- a (.agentloop/skills/a/SKILL.md)");
    expect(section).toContain("- b (.agentloop/skills/b/SKILL.md)");
  });
});

describe("finding skills and commands", () => {
  it("reads the user's skills first, so a repository cannot take over a user's skill name", async () => {
    const { home, repository, where } = places();
    put(home, ".claude/skills/review/SKILL.md", "---\ndescription: Mine\n---\nMy way.");
    put(repository, ".claude/skills/review/SKILL.md", "---\ndescription: Theirs\n---\nTheir way.");
    const { skills } = await findSkills(where);
    expect(skills.map((found) => [found.name, found.description, found.scope])).toEqual([
      ["review", "Mine", "user"],
    ]);
  });

  it("finds project skills from the workspace up to the repository root, nearest first", async () => {
    const { repository, cwd, where } = places();
    put(repository, ".agents/skills/lint/SKILL.md", "---\ndescription: Root lint\n---\n.");
    put(cwd, ".agentloop/skills/lint/SKILL.md", "---\ndescription: Web lint\n---\n.");
    put(repository, ".agentloop/skills/docs/SKILL.md", "---\ndescription: Docs\n---\n.");
    const described = (await findSkills(where)).skills.map((found) => found.description);
    expect(described).toEqual(["Web lint", "Docs"]);
  });

  it("takes a command's description from its body's first line when it has none", async () => {
    const { repository, where } = places();
    put(repository, ".claude/commands/standup.md", "\nSummarise yesterday.\nThen plan.");
    const [command] = (await findSkills(where)).skills;
    expect(command).toMatchObject({
      kind: "command",
      name: "standup",
      description: "Summarise yesterday.",
      modelInvocable: false,
    });
  });

  it("skips a skill with a bad name or broken frontmatter with one line each", async () => {
    const { repository, where } = places();
    put(repository, ".claude/skills/a/SKILL.md", "---\nname: Bad Name\ndescription: x\n---\n.");
    put(repository, ".claude/skills/b/SKILL.md", "---\ndescription: x\n");
    const { skills, skipped } = await findSkills(where);
    expect(skills).toEqual([]);
    expect(skipped).toEqual([
      `skipped ${join(repository, ".claude/skills/a/SKILL.md")}: the name "Bad Name" is not lowercase letters, digits and hyphens.`,
      `skipped ${join(repository, ".claude/skills/b/SKILL.md")}: the frontmatter's opening --- has no closing ---.`,
    ]);
  });

  it("expands /name args into the body, and nothing else that starts with a slash", async () => {
    const { repository, where } = places();
    put(repository, ".claude/commands/fix.md", "Fix issue #$1.");
    const catalog = await findSkills(where);
    expect(invocationOf("/fix 42", catalog)?.prompt).toBe("Fix issue #42.");
    expect(invocationOf("/usr/bin/env is missing", catalog)).toBeNull();
    expect(invocationOf("/other 42", catalog)).toBeNull();
  });
});

describe("the loaded skills after a compaction", () => {
  it("restates the most recent first, each within its share, within the whole budget", () => {
    const loaded = createLoadedSkills();
    loaded.add("old", "O".repeat(300));
    loaded.add("mid", "M".repeat(50));
    loaded.add("new", "N".repeat(50));
    const text = loaded.restated({ total: 200, each: 100 }) as string;
    const [heading, ...parts] = text.split("\n\n");
    expect(heading).toBe(RESTATED_HEADING);
    expect(parts).toEqual([
      "N".repeat(50),
      "M".repeat(50),
      `${"O".repeat(100)}\n[cut; load old again for the rest]`,
    ]);
  });

  it("names a skill the budget has no room left for, and says nothing when none was loaded", () => {
    const loaded = createLoadedSkills();
    expect(loaded.restated({ total: 100, each: 100 })).toBeNull();
    loaded.add("first", "F".repeat(10));
    loaded.add("second", "S".repeat(100));
    expect(loaded.restated({ total: 100, each: 100 })).toContain(
      "(first was loaded too; load it again for its text.)",
    );
  });
});

describe("the skills a history has loaded", () => {
  it("are read back from tool results, /name prompts and what a compaction restated", () => {
    const review = "Skill review, from /w/review/SKILL.md.\nReview it.";
    const lint = "Skill lint, from /w/lint/SKILL.md.\nLint it.";
    const docs = "Skill docs, from /w/docs/SKILL.md.\nDocument it.";
    const restated = createLoadedSkills([
      ["lint", lint],
      ["docs", docs],
    ]).restated({ total: 1000, each: 1000 }) as string;
    const found = skillsInHistory([
      { role: "user", content: review },
      {
        role: "user",
        content: [
          { type: "text", text: "Summary." },
          { type: "text", text: restated },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: 'No skill "gone".', is_error: true },
          {
            type: "tool_result",
            tool_use_id: "b",
            content: "Skill gone, from /x.",
            is_error: true,
          },
        ],
      },
    ]);
    expect(found).toEqual([
      ["review", review],
      ["lint", lint],
      ["docs", docs],
    ]);
  });
});

describe("the skill tool", () => {
  const signal = new AbortController().signal;
  const deploy = { ...skill("deploy", "Ship it"), modelInvocable: false, body: "Ship." };

  it("refuses a skill only the user may run, and names the skills for an unknown one", async () => {
    const tool = createSkillTool([skill("review", "Review"), deploy], createLoadedSkills());
    expect(await tool.run({ name: "deploy" }, { signal })).toEqual({
      content: "deploy is invoked by the user only (/deploy), not loaded by you.",
      isError: true,
    });
    expect(await tool.run({ name: "nope" }, { signal })).toEqual({
      content: 'No skill "nope". The skills are: review.',
      isError: true,
    });
  });

  it("says a skill the user ran with /name is already loaded", async () => {
    const { repository, where } = places();
    put(repository, ".claude/skills/review/SKILL.md", "---\ndescription: Review\n---\nCheck $1.");
    const catalog = await findSkills(where);
    const loaded = createLoadedSkills();
    expect(invocationOf("/review app.ts", catalog, loaded)?.prompt).toContain("\n\nCheck app.ts.");
    const tool = createSkillTool(catalog.skills, loaded);
    expect((await tool.run({ name: "review" }, { signal })).content).toMatch(
      /^Skill review is already loaded/,
    );
  });
});
