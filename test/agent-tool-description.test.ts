// The agent tool's description, which goes into every request: its list of agents stays within
// the skills' catalog's share of the window (1%), shortening descriptions before names, and
// says how many names it leaves out when even they do not fit.

import { describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../src/agents/built-ins.js";
import { DEFAULT_MAX_TURNS } from "../src/agents/definition.js";
import { agentToolDescription } from "../src/agents/tool-description.js";
import { catalogBudget } from "../src/skills/catalog.js";

/** A definition as a public collection writes them: a long description with its examples. */
const defined = (name: string, description: string) => ({
  name,
  description,
  prompt: "Do it.",
  disallowedTools: [],
  model: "inherit",
  maxTurns: DEFAULT_MAX_TURNS,
  source: `/work/.claude/agents/${name}.md`,
});

const collection = (count: number) =>
  Array.from({ length: count }, (_, index) =>
    defined(
      `specialist-${index}`,
      `Expert in area ${index}. Use PROACTIVELY for anything about it. ${"Examples: a request, and how to handle it. ".repeat(6)}`,
    ),
  );

/** The description's list of agents: from its heading to the end. */
const listOf = (description: string) => description.slice(description.indexOf("Agents ("));

describe("the agent tool's description", () => {
  it("lists the built-ins whole, in a few hundred bytes", () => {
    const description = agentToolDescription(BUILT_IN_AGENTS, catalogBudget(200_000));
    for (const agent of BUILT_IN_AGENTS) {
      expect(description).toContain(`- ${agent.name}: ${agent.description}`);
    }
    expect(Buffer.byteLength(description)).toBeLessThan(500);
  });

  it("with 150 definitions stays within 1% of a 200,000-token window and names every agent", () => {
    const agents = [...BUILT_IN_AGENTS, ...collection(149), defined("brief", "Says little.")];
    const budget = catalogBudget(200_000);
    const unbounded = agentToolDescription(agents);
    expect(listOf(unbounded).length).toBeGreaterThan(5 * budget);

    const description = agentToolDescription(agents, budget);
    expect(listOf(description).length).toBeLessThanOrEqual(budget);
    for (const agent of agents) expect(description).toContain(`- ${agent.name}: `);
    // A short description stays whole; the long ones are cut, not dropped.
    expect(description.endsWith("\n- brief: Says little.")).toBe(true);
    expect(description).toMatch(/\n- specialist-148: Expert in area 148\. .*…\n/);
    expect(description).not.toMatch(/left out/);
  });

  it("in a window too small for every name, lists the first ones and says how many it left out", () => {
    const agents = [...BUILT_IN_AGENTS, ...collection(150)];
    const budget = catalogBudget(32_768);
    const description = agentToolDescription(agents, budget);
    const list = listOf(description);
    expect(list.length).toBeLessThanOrEqual(budget);
    const named = agents.filter((agent) => list.includes(`- ${agent.name}\n`));
    expect(named.map((agent) => agent.name)).toEqual(
      agents.slice(0, named.length).map((agent) => agent.name),
    );
    expect(named.length).toBeGreaterThan(2);
    const left = agents.length - named.length;
    expect(
      list.endsWith(
        `- and ${left} more agents, left out for room: the user's /agents lists them all.`,
      ),
    ).toBe(true);
  });
});
