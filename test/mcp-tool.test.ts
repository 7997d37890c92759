// How one MCP tool is presented to the model: a name both APIs take, a schema both APIs take,
// a description of bounded length, and results turned into text.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CallOutcome,
  createMcpTool,
  describeTool,
  mcpToolName,
  toInputSchema,
} from "../src/mcp/mcp-tool.js";
import { bounded } from "../src/mcp/tool-result.js";

const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool> when that is valid", () => {
    expect(mcpToolName("github", "create_issue", new Set())).toBe("mcp__github__create_issue");
  });

  it("replace characters the APIs refuse", () => {
    expect(mcpToolName("my.server", "get file/ä", new Set())).toBe("mcp__my_server__get_file__");
  });

  it("are cut to 64 characters with a hash that tells long names apart", () => {
    const long = "a_tool_with_a_very_long_name_that_goes_on_and_on_and_on";
    const first = mcpToolName("server", `${long}_1`, new Set());
    const second = mcpToolName("server", `${long}_2`, new Set());
    expect(first).toMatch(VALID_NAME);
    expect(first).toHaveLength(64);
    expect(first.startsWith("mcp__server__a_tool")).toBe(true);
    expect(first).not.toBe(second);
    expect(mcpToolName("server", `${long}_1`, new Set())).toBe(first);
  });

  it("stay unique when two tools differ only in replaced characters", () => {
    const taken = new Set([mcpToolName("s", "get.file", new Set())]);
    const other = mcpToolName("s", "get/file", taken);
    expect(other).toMatch(VALID_NAME);
    expect(taken.has(other)).toBe(false);
    expect(other.startsWith("mcp__s__get_file_")).toBe(true);
  });
});

describe("MCP input schemas", () => {
  it("lose $schema and keep everything else", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object" as const,
      properties: { path: { type: "string", minLength: 1 } },
      required: ["path"],
      additionalProperties: false,
      $defs: { unused: { type: "number" } },
    };
    expect(toInputSchema(schema)).toEqual({
      type: "object",
      properties: { path: { type: "string", minLength: 1 } },
      required: ["path"],
      additionalProperties: false,
      $defs: { unused: { type: "number" } },
    });
  });

  it("get empty properties when they have none", () => {
    expect(toInputSchema({ type: "object" })).toEqual({ type: "object", properties: {} });
  });

  it("merge top-level anyOf, oneOf and allOf into one object, which the Anthropic API requires", () => {
    const schema = {
      type: "object" as const,
      properties: { mode: { type: "string" } },
      anyOf: [
        { properties: { id: { type: "string" } }, required: ["id"] },
        { properties: { path: { type: "string" } }, required: ["path"] },
      ],
      allOf: [{ properties: { force: { type: "boolean" } }, required: ["force"] }],
    };
    expect(toInputSchema(schema)).toEqual({
      type: "object",
      properties: {
        mode: { type: "string" },
        id: { type: "string" },
        path: { type: "string" },
        force: { type: "boolean" },
      },
      required: ["force"],
    });
  });
});

describe("MCP tool descriptions", () => {
  const definition = { name: "t", inputSchema: { type: "object" as const } };

  it("are the server's, cut after about 1,000 characters", () => {
    expect(describeTool("s", { ...definition, description: "Reads a file." })).toBe(
      "Reads a file.",
    );
    const long = describeTool("s", { ...definition, description: "word ".repeat(1000) });
    expect(long.length).toBeLessThanOrEqual(1006);
    expect(long.endsWith(" [...]")).toBe(true);
  });

  it("say whose tool it is when the server gives none", () => {
    expect(describeTool("s", definition)).toBe('The "t" tool of the MCP server "s".');
  });
});

describe("MCP tool calls", () => {
  const toolAnswering = (outcome: CallOutcome, transport: "stdio" | "http" = "stdio") =>
    createMcpTool({
      server: "s",
      definition: { name: "t", inputSchema: { type: "object" } },
      name: "mcp__s__t",
      transport,
      call: async () => outcome,
      callTimeoutMs: 120_000,
      outputDirectory: tmpdir(),
    });
  const run = (outcome: CallOutcome, transport?: "stdio" | "http") =>
    toolAnswering(outcome, transport).run({}, { signal: new AbortController().signal });

  it("turn every way a call ends into one result", async () => {
    expect(await run({ kind: "timed-out" })).toEqual({
      content: "The MCP tool mcp__s__t did not answer within 120 s; it was cancelled.",
      isError: true,
    });
    expect(await run({ kind: "failed", message: "MCP error -32602: bad input" })).toEqual({
      content: "The MCP tool mcp__s__t failed: MCP error -32602: bad input",
      isError: true,
    });
    expect((await run({ kind: "server-stopped", reason: "it exited with code 1" })).content).toBe(
      'The MCP server "s" stopped during the call (it exited with code 1). It will be started again for the next call to one of its tools.',
    );
    expect((await run({ kind: "server-stopped", reason: "reset" }, "http")).content).toBe(
      'The MCP server "s" stopped during the call (reset). The next call to one of its tools will connect to it again.',
    );
    expect(
      await run({ kind: "result", result: { content: [{ type: "text", text: "ok" }] } }),
    ).toEqual({ content: "ok", isError: false });
    expect(await run({ kind: "result", result: { content: [] } })).toEqual({
      content: "(no output)",
      isError: false,
    });
  });

  it("are read-only only when the server says so", () => {
    const plain = toolAnswering({ kind: "timed-out" });
    expect(plain.isReadOnly).toBeUndefined();
  });
});

describe("bounded results", () => {
  it("lose terminal escapes, and keep short text whole", () => {
    const bounds = { maxChars: 100, outputDirectory: tmpdir(), toolName: "t" };
    expect(bounded("\x1b[31mred\x1b[0m text", bounds)).toBe("red text");
  });

  it("keep the start and the end of long text and save all of it", () => {
    const directory = join(mkdtempSync(join(tmpdir(), "agentloop-mcp-")), "outputs");
    const text = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join("\n");
    const result = bounded(text, { maxChars: 40, outputDirectory: directory, toolName: "t" });
    const [head, note, tail] = splitNote(result);
    expect(head).toBe(text.slice(0, 20));
    expect(tail).toBe(text.slice(-20));
    const path = note.match(/saved in full to (\S+) \.\.\.\]$/)?.[1] as string;
    expect(note).toContain(`${text.length} characters, 100 lines in all`);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("are bounded in UTF-8 bytes too, cut between characters", () => {
    const directory = join(mkdtempSync(join(tmpdir(), "agentloop-mcp-")), "outputs");
    const text = "漢字".repeat(30);
    const result = bounded(text, { maxChars: 40, outputDirectory: directory, toolName: "t" });
    const [head, , tail] = splitNote(result);
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(40);
    expect(head).toBe("漢字".repeat(3));
    expect(tail).toBe("漢字".repeat(3));
  });
});

function splitNote(result: string): [string, string, string] {
  const start = result.indexOf("\n[... output cut");
  const end = result.indexOf("...]\n", start) + 4;
  return [result.slice(0, start), result.slice(start + 1, end), result.slice(end + 1)];
}
