// A server the repository defines starts only once the user allowed it: at a terminal (asked
// once per definition, the answer remembered in the user's state) or in the user's own
// settings. Servers from the user's settings and from --mcp-config need nothing.

import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import {
  approvedServers,
  type McpApprovalQuestion,
  mcpApprovalsPath,
  parseMcpAnswer,
  summarize,
} from "../src/mcp/approval.js";
import type { McpServerConfig, McpServerEntry } from "../src/mcp/config.js";
import { terminalMcpAsk } from "../src/terminal/mcp-ask.js";
import { openLineTerminal } from "./support/line-terminal.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-mcp-approval-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;

/** A fresh workspace, user config home and state home. */
function setup() {
  const dir = join(root, String(count++));
  const workspace = join(dir, "work");
  mkdirSync(workspace, { recursive: true });
  const env = { XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state") };
  const userFile = join(env.XDG_CONFIG_HOME, "agentloop", "settings.json");
  const projectFile = join(workspace, ".mcp.json");
  const writeSettings = (file: string, settings: object) => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, JSON.stringify(settings));
  };
  const project = (name: string, config: McpServerConfig = { type: "stdio", command: name }) =>
    ({ name, config, source: "project", file: projectFile }) satisfies McpServerEntry;
  return { dir, workspace, env, userFile, projectFile, writeSettings, project };
}

type Setup = ReturnType<typeof setup>;

/** One session's start: which servers it gets, what was asked and what was said. */
async function start(
  setup: Setup,
  servers: McpServerEntry[],
  answer?: (question: McpApprovalQuestion) => boolean | null,
  workspace = setup.workspace,
) {
  const questions: McpApprovalQuestion[] = [];
  const notices: string[] = [];
  const ask =
    answer &&
    (async (question: McpApprovalQuestion) => {
      questions.push(question);
      return answer(question);
    });
  const approved = await approvedServers(servers, {
    workspace,
    env: setup.env,
    ...(ask ? { ask } : {}),
    onNotice: (sentence) => notices.push(sentence),
  });
  return { names: approved.map((server) => server.name), questions, notices };
}

const yes = () => true;
const no = () => false;
/** Ctrl-C at the question. */
const unanswered = () => null;

describe("servers that are the user's own", () => {
  it("start without a question from the user's settings and from --mcp-config", async () => {
    const s = setup();
    const servers: McpServerEntry[] = [
      { name: "mine", config: { type: "stdio", command: "m" }, source: "user", file: s.userFile },
      { name: "flag", config: { type: "http", url: "http://h/" }, source: "flag", file: "/x.json" },
    ];
    const ask = vi.fn();
    const started = await start(s, servers, ask);
    expect(started.names).toEqual(["mine", "flag"]);
    expect(ask).not.toHaveBeenCalled();
    expect(started.notices).toEqual([]);
  });
});

describe("at a terminal in permission mode ask", () => {
  it("asks once before a project server first starts, then remembers the yes", async () => {
    const s = setup();
    const github = s.project("github", {
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_TOKEN: "t0ken" },
    });
    const first = await start(s, [github], yes);
    expect(first.names).toEqual(["github"]);
    expect(first.questions).toEqual([
      {
        name: "github",
        summary: "npx -y @modelcontextprotocol/server-github (env GITHUB_TOKEN)",
        file: s.projectFile,
      },
    ]);
    const second = await start(s, [github], yes);
    expect(second.names).toEqual(["github"]);
    expect(second.questions).toEqual([]);
  });

  it("starts none of the servers left when Ctrl-C ends a question, and asks again next time", async () => {
    const s = setup();
    const servers = [s.project("first"), s.project("second")];
    const interrupted = await start(s, servers, unanswered);
    expect(interrupted.names).toEqual([]);
    expect(interrupted.questions.map((question) => question.name)).toEqual(["first"]);
    const next = await start(s, servers, yes);
    expect(next.questions.map((question) => question.name)).toEqual(["first", "second"]);
    expect(next.names).toEqual(["first", "second"]);
  });

  it("asks again when the definition changed", async () => {
    const s = setup();
    await start(s, [s.project("tool", { type: "stdio", command: "tool", args: ["--safe"] })], yes);
    const changed = await start(s, [s.project("tool", { type: "stdio", command: "tool" })], yes);
    expect(changed.questions.map((question) => question.summary)).toEqual(["tool"]);
    const again = await start(s, [s.project("tool", { type: "stdio", command: "tool" })], yes);
    expect(again.questions).toEqual([]);
  });

  it("remembers a no: the server stays off and is not asked about again", async () => {
    const s = setup();
    const first = await start(s, [s.project("tool")], no);
    expect(first.names).toEqual([]);
    expect(first.notices).toEqual([]);
    const second = await start(s, [s.project("tool")], yes);
    expect(second.names).toEqual([]);
    expect(second.questions).toEqual([]);
    expect(second.notices).toEqual([
      `MCP server "tool" from ${s.projectFile} was not started: you declined it (you are asked again if its definition changes); to allow it anyway, add "enabledMcpjsonServers": ["tool"] to ${s.userFile}.`,
    ]);
  });

  it("asks about each server, and keeps the order of the list", async () => {
    const s = setup();
    const user: McpServerEntry = {
      name: "u",
      config: { type: "stdio", command: "u" },
      source: "user",
      file: s.userFile,
    };
    const started = await start(s, [s.project("a"), user, s.project("b")], (q) => q.name === "b");
    expect(started.questions.map((question) => question.name)).toEqual(["a", "b"]);
    expect(started.names).toEqual(["u", "b"]);
  });

  it("remembers answers per project", async () => {
    const s = setup();
    await start(s, [s.project("tool")], yes);
    const elsewhere = join(s.dir, "other");
    mkdirSync(elsewhere);
    const other = await start(s, [s.project("tool")], yes, elsewhere);
    expect(other.questions).toHaveLength(1);
  });

  it("keeps the answers in the user's state, readable by the user only", async () => {
    const s = setup();
    await start(s, [s.project("tool")], yes);
    const file = join(s.env.XDG_STATE_HOME, "agentloop", "mcp-approvals.json");
    expect(mcpApprovalsPath(s.env)).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const state = JSON.parse(readFileSync(file, "utf8"));
    expect(state.projects[s.workspace].tool).toMatchObject({ approved: true });
  });
});

describe("without a terminal, or in another permission mode", () => {
  it("does not start a project server and says how to allow it", async () => {
    const s = setup();
    const started = await start(s, [s.project("tool")]);
    expect(started.names).toEqual([]);
    expect(started.notices).toEqual([
      `MCP server "tool" from ${s.projectFile} was not started: a server the project defines needs your approval; run agentloop at a terminal in permission mode ask to be asked, or add "enabledMcpjsonServers": ["tool"] to ${s.userFile}.`,
    ]);
  });

  it("starts a server approved earlier at a terminal, until its definition changes", async () => {
    const s = setup();
    await start(s, [s.project("tool")], yes);
    expect((await start(s, [s.project("tool")])).names).toEqual(["tool"]);
    const changed = await start(s, [s.project("tool", { type: "stdio", command: "other" })]);
    expect(changed.names).toEqual([]);
    expect(changed.notices[0]).toContain(
      "was not started: its definition changed since you answered;",
    );
  });
});

describe("the user's settings", () => {
  it('allow every project server with "enableAllProjectMcpServers": true', async () => {
    const s = setup();
    s.writeSettings(s.userFile, { enableAllProjectMcpServers: true });
    const started = await start(s, [s.project("a"), s.project("b")]);
    expect(started.names).toEqual(["a", "b"]);
    expect(started.notices).toEqual([]);
  });

  it('allow project servers by name with "enabledMcpjsonServers", even ones declined before', async () => {
    const s = setup();
    await start(s, [s.project("a")], no);
    s.writeSettings(s.userFile, { enabledMcpjsonServers: ["a"] });
    const ask = vi.fn();
    const started = await start(s, [s.project("a"), s.project("b")], ask);
    expect(started.names).toEqual(["a"]);
    expect(ask).toHaveBeenCalledOnce();
  });

  it("are the only ones that can: the project's settings cannot allow its own servers", async () => {
    const s = setup();
    const projectSettings = join(s.workspace, ".agentloop", "settings.json");
    s.writeSettings(projectSettings, {
      enableAllProjectMcpServers: true,
      enabledMcpjsonServers: ["tool"],
    });
    const started = await start(s, [s.project("tool")]);
    expect(started.names).toEqual([]);
    expect(started.notices).toEqual([
      `"enableAllProjectMcpServers" in ${projectSettings} is ignored: only your own settings (${s.userFile}) can allow a project's MCP servers.`,
      `"enabledMcpjsonServers" in ${projectSettings} is ignored: only your own settings (${s.userFile}) can allow a project's MCP servers.`,
      expect.stringContaining(`MCP server "tool" from ${s.projectFile} was not started`),
    ]);
  });

  it.each([
    [
      { enableAllProjectMcpServers: "yes" },
      `"enableAllProjectMcpServers" in FILE must be true or false.`,
    ],
    [
      { enabledMcpjsonServers: "tool" },
      `"enabledMcpjsonServers" in FILE must be a list of server names.`,
    ],
  ])("reject %j", async (settings, sentence) => {
    const s = setup();
    s.writeSettings(s.userFile, settings);
    await expect(start(s, [s.project("tool")])).rejects.toThrow(
      new ConfigError(sentence.replace("FILE", s.userFile)),
    );
  });
});

describe("the question", () => {
  it.each<[McpServerConfig, string]>([
    [{ type: "stdio", command: "mcp-files" }, "mcp-files"],
    [
      { type: "stdio", command: "node", args: ["my server.js", "it's"] },
      `node 'my server.js' 'it'\\''s'`,
    ],
    [
      { type: "stdio", command: "uvx", args: ["tool"], env: { A: "1", B: "2" }, cwd: "/w/tools" },
      "uvx tool (env A, B; in /w/tools)",
    ],
    [{ type: "http", url: "https://mcp.example.com/mcp" }, "https://mcp.example.com/mcp"],
    [
      { type: "http", url: "https://h/mcp", headers: { Authorization: "Bearer secret" } },
      "https://h/mcp (headers Authorization)",
    ],
  ])("shows %j as %j, without the values of env and headers", (config, summary) => {
    expect(summarize(config)).toBe(summary);
  });

  it.each([
    ["y", true],
    ["YES", true],
    [" yes ", true],
    ["n", false],
    ["no", false],
    ["", false],
    ["sure", false],
  ])("reads %j as %j", (line, expected) => {
    expect(parseMcpAnswer(line)).toBe(expected);
  });

  it("is asked at the terminal with the name, what would run and the file", async () => {
    const { readline, input, output, shown } = openLineTerminal();
    const answer = terminalMcpAsk(
      readline,
      output,
    )({
      name: "files",
      summary: "npx -y server-files",
      file: "/w/.mcp.json",
    });
    input.write("y\n");
    expect(await answer).toBe(true);
    readline.close();
    expect(shown().split("\n")).toEqual([
      "",
      'Allow the MCP server "files" from /w/.mcp.json to start?',
      "  npx -y server-files",
      "  It would run with your permissions.",
      "  The answer is remembered until its definition changes.",
      "[y]es, [n]o: ",
    ]);
  });
});
