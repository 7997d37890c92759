// A toolbox whose tools change between turns (an MCP server announced new ones), and rules
// that name every tool of one server at once.

import { describe, expect, it } from "vitest";
import { ruleForTool } from "../src/permissions/rules.js";
import type { Tool } from "../src/tools/tool.js";
import { createToolbox } from "../src/tools/toolbox.js";

const tool = (name: string): Tool => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: "object", properties: {} },
  run: async () => ({ content: `${name} ran`, isError: false }),
});

describe("a toolbox whose tools change", () => {
  it("offers and runs the current tools, and keeps the same definitions until they change", async () => {
    let tools: Tool[] = [tool("a")];
    const toolbox = createToolbox(() => tools);
    const first = toolbox.definitions;
    expect(first.map((definition) => definition.name)).toEqual(["a"]);
    expect(toolbox.definitions).toBe(first);
    tools = [tool("a"), tool("b")];
    expect(toolbox.definitions.map((definition) => definition.name)).toEqual(["a", "b"]);
    const call = { type: "tool_use" as const, id: "t1", name: "b", input: {} };
    expect(await toolbox.run(call, new AbortController().signal)).toMatchObject({
      content: "b ran",
    });
  });
});

describe("rules naming tools", () => {
  it("match a tool by name, or every tool whose name starts as the rule's before *", () => {
    const rules = ["tool:edit", "tool:mcp__github__*", "git push"];
    expect(ruleForTool(rules, "edit")).toBe("tool:edit");
    expect(ruleForTool(rules, "mcp__github__create_issue")).toBe("tool:mcp__github__*");
    expect(ruleForTool(rules, "mcp__gitlab__create_issue")).toBeUndefined();
    expect(ruleForTool(rules, "edit_more")).toBeUndefined();
  });
});
