import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../src/command-line/config.js";

describe("the command line", () => {
  it("starts the REPL with no prompt", () => {
    expect(parseCommandLine([], "/home/me/project")).toMatchObject({
      command: "run",
      oneShot: false,
      prompt: undefined,
      cwd: "/home/me/project",
      maxTurns: 200,
      outputFormat: "text",
    });
  });

  it("runs one task from an argument or from -p", () => {
    expect(parseCommandLine(["fix", "the bug"], "/p")).toMatchObject({
      oneShot: true,
      prompt: "fix the bug",
    });
    expect(parseCommandLine(["-p", "fix it"], "/p")).toMatchObject({
      oneShot: true,
      prompt: "fix it",
    });
    expect(parseCommandLine(["-p"], "/p")).toMatchObject({ oneShot: true, prompt: undefined });
  });

  it("starts the editor's agent with `acp`, its flags the defaults of every session", () => {
    const options = parseCommandLine(
      ["acp", "--model", "m", "--permission-mode", "auto", "--mcp-config", "servers.json"],
      "/p",
    );
    expect(options).toMatchObject({
      command: "acp",
      model: "m",
      permissionMode: "auto",
      mcpConfigFiles: ["/p/servers.json"],
    });
    expect(parseCommandLine(["acp", "now"], "/p")).toMatchObject({
      command: "run",
      prompt: "acp now",
    });
  });

  it("reads every documented flag", () => {
    const options = parseCommandLine(
      [
        "--model",
        "m",
        "--provider",
        "ollama",
        "--base-url",
        "http://h:1/v1",
        "--api",
        "responses",
        "--max-turns",
        "7",
        "--max-cost",
        "0.5",
        "--output-format",
        "json",
        "--resume",
        "abc",
        "--cwd",
        "sub",
        "--permission-mode",
        "auto",
        "--allow-network",
        "--writable-git-dir",
        "--memory",
        "--teams",
        "--goal",
        "  tests pass ",
        "--goal-model",
        "judge-m",
        "--goal-max-turns",
        "3",
        "task",
      ],
      "/p",
    );
    expect(options).toMatchObject({
      model: "m",
      provider: "ollama",
      baseURL: "http://h:1/v1",
      api: "responses",
      maxTurns: 7,
      maxCost: 0.5,
      outputFormat: "json",
      resume: { id: "abc" },
      cwd: "/p/sub",
      permissionMode: "auto",
      allowNetwork: true,
      writableGitDir: true,
      prompt: "task",
    });
    // The chapters' own flags (src/NAME/chapter.ts), checked, for their parts to read.
    expect(options).toMatchObject({
      flags: {
        memory: true,
        teams: true,
        goal: "tests pass",
        "goal-model": "judge-m",
        "goal-max-turns": 3,
      },
    });
    expect(parseCommandLine(["--continue"], "/p")).toMatchObject({
      resume: { latest: true },
      writableGitDir: false,
      flags: {},
    });
    expect(parseCommandLine(["--dangerously-skip-permissions"], "/p")).toMatchObject({
      permissionMode: "yolo",
    });
  });

  it("knows the sessions and view subcommands", () => {
    expect(parseCommandLine(["sessions"], "/p")).toEqual({ command: "sessions", cwd: "/p" });
    expect(
      parseCommandLine(["view", "id1", "--port", "8123", "--export", "out.html"], "/p"),
    ).toEqual({
      command: "view",
      cwd: "/p",
      sessionId: "id1",
      port: 8123,
      open: false,
      exportPath: "/p/out.html",
    });
  });

  it.each([
    [["--max-turns", "0"], /--max-turns must be a whole number of at least 1, got "0"/],
    [["--max-turns", "many"], /--max-turns must be a whole number/],
    [["--output-format", "xml"], /--output-format must be one of text, json, stream-json/],
    [["--bogus"], /Unknown option '--bogus'.*agentloop --help/],
    [["--continue", "--resume", "x"], /either --continue or --resume/],
    [["--max-cost", "0"], /--max-cost must be a positive number/],
    [["--goal", "  "], /^--goal needs a condition, for example --goal "npm test passes"\.$/],
    [
      ["--goal-max-turns", "0"],
      /^--goal-max-turns must be a whole number of at least 1, got "0"\.$/,
    ],
    [["--memory=on"], /Option '--memory' does not take an argument.*agentloop --help/],
  ])("rejects %j with one sentence", (argv, message) => {
    expect(() => parseCommandLine(argv, "/p")).toThrow(message);
  });
});
