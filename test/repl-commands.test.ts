// The REPL's command table: what counts as a command, the hint for an unknown one, and what
// Tab offers.

import { describe, expect, it } from "vitest";
import { createBackgroundPart } from "../src/background/part.js";
import { createPluginsPart } from "../src/plugins/part.js";
import { COMMANDS, commandsOf, completeInput, parseInput } from "../src/repl/commands.js";

const sessionIds = () => [
  "2026-03-02T10-00-00-000-abc123",
  "2026-03-01T09-00-00-000-def456",
  "2025-12-31T23-00-00-000-abc999",
];

describe("reading a line at the REPL", () => {
  it("a slash and a known name is that command, with the rest as its argument", () => {
    const parsed = parseInput("  /compact   the failing tests  ");
    expect(parsed).toMatchObject({ kind: "command", argument: "the failing tests" });
    expect(parsed.kind === "command" && parsed.command.name).toBe("/compact");
  });

  it("a command without an argument has an empty one", () => {
    expect(parseInput("/cost")).toMatchObject({ kind: "command", argument: "" });
  });

  it("an argument keeps its newlines", () => {
    expect(parseInput("/compact first\nsecond")).toMatchObject({ argument: "first\nsecond" });
  });

  it("exit, quit and q are /exit", () => {
    for (const word of ["exit", "quit", "q", "/exit"]) {
      const parsed = parseInput(word);
      expect(parsed.kind === "command" && parsed.command.name).toBe("/exit");
    }
  });

  it("an unknown command gets a one-line hint, never a prompt", () => {
    expect(parseInput("/foo bar")).toEqual({
      kind: "unknown",
      name: "/foo",
      hint: "Unknown command /foo; /help lists them.",
    });
  });

  it("a path is a prompt, not a command", () => {
    expect(parseInput("/usr/bin/env is missing, why?")).toEqual({
      kind: "prompt",
      text: "/usr/bin/env is missing, why?",
    });
  });

  it("anything else is a prompt, trimmed, with its inner newlines", () => {
    expect(parseInput("  fix the bug\nin parse.ts \n")).toEqual({
      kind: "prompt",
      text: "fix the bug\nin parse.ts",
    });
  });

  it("a blank line is nothing", () => {
    expect(parseInput("   ")).toEqual({ kind: "empty" });
  });
});

describe("the command table", () => {
  it("has every command of the REPL and its parts', each with one line of help", () => {
    const plugins = createPluginsPart({ workspace: "/nonexistent", env: {} });
    const tasks = createBackgroundPart({ outputDirectory: "/nonexistent", offerStop: true });
    const commands = commandsOf([plugins, tasks]);
    expect(commands.map((command) => command.name)).toEqual([
      "/help",
      "/agents",
      "/clear",
      "/compact",
      "/cost",
      "/model",
      "/skills",
      "/sessions",
      "/resume",
      "/plan",
      "/permissions",
      "/hooks",
      "/export",
      "/plugins",
      "/tasks",
      "/exit",
    ]);
    for (const command of commands) {
      expect(command.help).toMatch(/^[a-z][^\n]*[^.]$/);
      expect(command.name).toMatch(/^\/[a-z]+$/);
    }
  });
});

describe("Tab at the REPL", () => {
  it("offers the commands that start with what was typed", () => {
    expect(completeInput("/c", { sessionIds, moreCommands: () => [] })).toEqual([
      ["/clear", "/compact", "/cost"],
      "/c",
    ]);
    expect(completeInput("/pe", { sessionIds, moreCommands: () => [] })).toEqual([
      ["/permissions"],
      "/pe",
    ]);
  });

  it("offers every command after a lone slash", () => {
    const [candidates] = completeInput("/", { sessionIds, moreCommands: () => [] });
    expect(candidates).toEqual(COMMANDS.map((command) => command.name));
  });

  it("offers nothing for a prompt or an unknown command", () => {
    expect(completeInput("fix the", { sessionIds, moreCommands: () => [] })).toEqual([
      [],
      "fix the",
    ]);
    expect(completeInput("/zz", { sessionIds, moreCommands: () => [] })).toEqual([[], "/zz"]);
  });

  it("offers this directory's session ids after /resume", () => {
    expect(completeInput("/resume 2026-03", { sessionIds, moreCommands: () => [] })).toEqual([
      ["2026-03-02T10-00-00-000-abc123", "2026-03-01T09-00-00-000-def456"],
      "2026-03",
    ]);
    expect(completeInput("/resume ", { sessionIds, moreCommands: () => [] })[0]).toHaveLength(3);
  });

  it("offers the skills and custom commands beside the built-in ones", () => {
    const skillCommands = () => ["/review", "/release-notes"];
    expect(completeInput("/re", { sessionIds, moreCommands: skillCommands })).toEqual([
      ["/resume", "/review", "/release-notes"],
      "/re",
    ]);
  });

  it("offers nothing for the argument of a command without candidates", () => {
    expect(completeInput("/compact the", { sessionIds, moreCommands: () => [] })).toEqual([
      [],
      "the",
    ]);
  });
});
