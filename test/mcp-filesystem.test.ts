// A published MCP server used for real: @modelcontextprotocol/server-filesystem (a
// devDependency), started over stdio by its npm bin on a temporary directory.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LoopEvent } from "../src/core/events.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { connectMcpServers, type McpConnections } from "../src/mcp/connections.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { drain } from "./support/drain.js";
import { entry } from "./support/mcp-servers.js";
import { scriptedProvider, text } from "./support/scripted-provider.js";

const SERVER_BIN = join(import.meta.dirname, "..", "node_modules", ".bin", "mcp-server-filesystem");

let connections: McpConnections | undefined;
afterEach(() => connections?.close());

describe("the filesystem MCP server from npm", () => {
  it("lists a directory and reads a file through the loop, and refuses paths outside it", async () => {
    const root = mkdtempSync(join(tmpdir(), "agentloop-mcp-fs-"));
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "notes.md"), "# Notes\nThe answer is 42.\n");
    writeFileSync(join(root, "README.md"), "hello\n");
    const notices: string[] = [];
    connections = await connectMcpServers(
      [entry("fs", { type: "stdio", command: SERVER_BIN, args: [root] })],
      { outputDirectory: join(root, ".outputs"), onNotice: (sentence) => notices.push(sentence) },
    );
    expect(notices).toEqual([]);
    const names = connections.tools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["mcp__fs__list_directory", "mcp__fs__read_text_file"]),
    );
    const provider = scriptedProvider([
      {
        content: [
          { type: "tool_use", id: "t1", name: "mcp__fs__list_directory", input: { path: root } },
          {
            type: "tool_use",
            id: "t2",
            name: "mcp__fs__read_text_file",
            input: { path: join(root, "docs", "notes.md") },
          },
          {
            type: "tool_use",
            id: "t3",
            name: "mcp__fs__read_text_file",
            input: { path: "/etc/hostname" },
          },
        ],
      },
      { content: [text("The answer is 42.")] },
    ]);
    const toolbox = createToolbox(() => connections?.tools() ?? []);
    const state = createLoopState([{ role: "user", content: "what do the notes say?" }]);
    const { events } = await drain(
      agentLoop(state, { provider, toolbox, system: "test", maxTurns: 5 }),
    );
    const results = events.flatMap((event: LoopEvent) =>
      event.type === "tool_end" ? [event.result] : [],
    );
    expect(results[0]).toMatchObject({ content: "[FILE] README.md\n[DIR] docs", is_error: false });
    expect(results[1]).toMatchObject({ content: "# Notes\nThe answer is 42.\n", is_error: false });
    expect(results[2]?.is_error).toBe(true);
    expect(results[2]?.content).toContain("outside allowed directories");
  });
});
