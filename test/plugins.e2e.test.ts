// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are plugin files, where agentloop expands ${CLAUDE_PLUGIN_ROOT}.
// Plugins in Claude Code's format through the built CLI against the fake Anthropic server: a
// fixture marketplace (a folder, and the same as a local bare git repository) holds the plugin
// "demo" with a skill, a command, an agent, a PreToolUse hook and a stdio MCP server. Installed,
// a session offers each under the `demo:` prefix and the hook, run from agentloop's cache with
// ${CLAUDE_PLUGIN_ROOT} expanded, blocks a bash call; disabled, none of it remains and the hook
// does not run; enabled by a project's settings it waits for the person's trust; `validate`
// names what is wrong in a broken manifest.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git } from "./support/git-repository.js";
import { TEST_SERVER } from "./support/mcp-servers.js";
import { openRepl } from "./support/terminal.js";

type Event = { type: string; [key: string]: unknown };
interface SentRequest {
  system: unknown;
  tools: { name: string; description?: string }[];
  messages: { role: string; content: unknown }[];
}

function put(root: string, path: string, content: string) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** The fixture marketplace in `root`: one plugin, "demo", with one of each component. */
function writeMarketplace(root: string): string {
  put(
    root,
    ".claude-plugin/marketplace.json",
    JSON.stringify({
      name: "fixture",
      owner: { name: "agentloop tests" },
      plugins: [{ name: "demo", source: "./plugins/demo", description: "One of each" }],
    }),
  );
  const demo = join(root, "plugins", "demo");
  // Fields agentloop does not read (userConfig, a future key) are ignored.
  put(
    demo,
    ".claude-plugin/plugin.json",
    JSON.stringify({
      name: "demo",
      version: "1.0.0",
      author: { name: "tests" },
      userConfig: {},
      somethingNew: [1, 2],
    }),
  );
  put(
    demo,
    "skills/review/SKILL.md",
    "---\ndescription: Review a change the demo way\n---\nRead the diff twice.",
  );
  put(demo, "commands/hello.md", "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.");
  put(
    demo,
    "agents/reviewer.md",
    "---\nname: reviewer\ndescription: Reviews code for the demo\n---\nYou review code.",
  );
  put(
    demo,
    "hooks/hooks.json",
    JSON.stringify({
      description: "refuses rm",
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: 'bash "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"' }],
          },
        ],
      },
    }),
  );
  // $0 is the path the command named, and the plugin's variables are in its environment too.
  put(
    demo,
    "hooks/guard.sh",
    'if grep -q \'"command":"rm \'; then echo "rm refused by $0 in $CLAUDE_PLUGIN_ROOT" >&2; exit 2; fi\nexit 0\n',
  );
  put(
    demo,
    ".mcp.json",
    JSON.stringify({
      mcpServers: {
        tools: { command: process.execPath, args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] },
      },
    }),
  );
  put(demo, "server.mjs", `import ${JSON.stringify(TEST_SERVER)};\n`);
  return root;
}

/** The same marketplace as a bare repository, as a git host would serve it. */
function bareRepository(sandbox: Sandbox): string {
  const source = writeMarketplace(join(sandbox.home, "..", "fixture-source"));
  git(source, "init", "--quiet", "--initial-branch", "main");
  git(source, "add", ".");
  git(source, "commit", "--quiet", "-m", "fixture");
  const bare = join(sandbox.home, "..", "fixture.git");
  execFileSync("git", ["clone", "--quiet", "--bare", source, bare]);
  return bare;
}

const YOLO = ["--permission-mode", "yolo"];
const rmCall = [reply(toolUse("toolu_rm", "bash", { command: "rm keep.txt" })), reply(text("OK."))];

describe("plugins", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const plugin = (sandbox: Sandbox, ...args: string[]) =>
    runCli(["plugin", ...args], { env: sandbox.env, cwd: sandbox.workspace });

  async function session(sandbox: Sandbox, turns: FakeTurn[], prompt = "go") {
    model.script(turns);
    const before = model.requestCount();
    const result = await runCli(["--output-format", "stream-json", ...YOLO, "-p", prompt], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    const events = result.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Event);
    const requests = model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as SentRequest);
    const first = requests[0] as SentRequest;
    const results = events.flatMap((event) =>
      event.type === "tool_end" ? [event.result as ToolResultBlock] : [],
    );
    return {
      ...result,
      results,
      hookRuns: events.filter((event) => event.type === "hook"),
      system: JSON.stringify(first.system),
      toolNames: first.tools.map((tool) => tool.name),
      agentTool: first.tools.find((tool) => tool.name === "agent")?.description ?? "",
      firstMessage: JSON.stringify(first.messages[0]?.content),
    };
  }

  const cacheOf = (sandbox: Sandbox) =>
    join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "plugins", "cache", "fixture", "demo");

  it("installed from a folder, offers demo:-prefixed skill, command, agent, the server's tools and a hook that blocks; disabled, none", async () => {
    const sandbox = freshSandbox();
    const marketplace = writeMarketplace(join(sandbox.home, "..", "marketplace"));
    const added = await plugin(sandbox, "marketplace", "add", marketplace);
    expect(added.stdout).toContain('Added the marketplace "fixture" with 1 plugin.');
    const installed = await plugin(sandbox, "install", "demo@fixture");
    expect(installed.code).toBe(0);
    // What its hook and server run is shown as the person installs it.
    expect(installed.stdout).toContain(
      'hook PreToolUse (Bash) runs: bash "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh"',
    );
    expect(installed.stdout).toContain("MCP server tools runs:");
    expect(existsSync(join(cacheOf(sandbox), "hooks", "guard.sh"))).toBe(true);
    const userSettings = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    expect(JSON.parse(readFileSync(userSettings, "utf8"))).toEqual({
      enabledPlugins: { "demo@fixture": true },
    });

    writeFileSync(join(sandbox.workspace, "keep.txt"), "precious\n");
    const on = await session(sandbox, rmCall);
    expect(on.code).toBe(0);
    expect(on.system).toContain("demo:review: Review a change the demo way");
    expect(on.agentTool).toContain("- demo:reviewer: Reviews code for the demo");
    expect(on.toolNames).toEqual(
      expect.arrayContaining(["mcp__plugin_demo_tools__echo", "mcp__plugin_demo_tools__add"]),
    );
    // The hook ran from the cache, ${CLAUDE_PLUGIN_ROOT} expanded, and refused the rm.
    expect(on.results[0]?.is_error).toBe(true);
    expect(on.results[0]?.content).toContain(
      `rm refused by ${join(cacheOf(sandbox), "hooks", "guard.sh")} in ${cacheOf(sandbox)}`,
    );
    expect(on.hookRuns).toMatchObject([{ decision: "block" }]);
    expect(existsSync(join(sandbox.workspace, "keep.txt"))).toBe(true);

    const command = await session(sandbox, [reply(text("Hello."))], "/demo:hello the team");
    expect(command.firstMessage).toContain("Say hello to the team.");
    // `agentloop mcp list` reads the same sources a session does.
    const listed = await runCli(["mcp", "list"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(listed.stdout).toMatch(/^plugin_demo_tools {2}connected {2}\d+ tools/m);

    const disabled = await plugin(sandbox, "disable", "demo@fixture");
    expect(disabled.stdout).toContain("Disabled demo@fixture");
    expect((await plugin(sandbox, "list")).stdout).toContain("demo@fixture\tdisabled");
    const off = await session(sandbox, rmCall);
    expect(off.code).toBe(0);
    expect(off.system).not.toContain("demo:");
    expect(off.agentTool).not.toContain("demo:");
    expect(off.toolNames.filter((name) => name.includes("plugin_demo"))).toEqual([]);
    expect(off.hookRuns).toEqual([]);
    expect(existsSync(join(sandbox.workspace, "keep.txt"))).toBe(false);
    const typed = await session(sandbox, [reply(text("Hm."))], "/demo:hello the team");
    expect(typed.firstMessage).toContain("/demo:hello the team");
  });

  it("installs the same marketplace from a local bare git repository, cloned into agentloop's state", async () => {
    const sandbox = freshSandbox();
    const bare = bareRepository(sandbox);
    const added = await plugin(sandbox, "marketplace", "add", bare);
    expect(added.code).toBe(0);
    expect((await plugin(sandbox, "marketplace", "list")).stdout).toBe(`fixture\tgit ${bare}\n`);
    expect((await plugin(sandbox, "install", "demo@fixture")).code).toBe(0);
    expect((await plugin(sandbox, "list")).stdout).toBe("demo@fixture\tenabled\n");
    const on = await session(sandbox, [reply(text("Hi."))]);
    expect(on.system).toContain("demo:review");
    expect(on.toolNames).toContain("mcp__plugin_demo_tools__echo");
    expect((await plugin(sandbox, "marketplace", "update", "fixture")).stdout).toContain(
      'Updated the marketplace "fixture": 1 plugin.',
    );
    expect((await plugin(sandbox, "uninstall", "demo@fixture")).code).toBe(0);
    expect(existsSync(cacheOf(sandbox))).toBe(false);
    expect((await plugin(sandbox, "list")).stdout).toContain("No plugins installed");
    const userFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    expect(JSON.parse(readFileSync(userFile, "utf8"))).toEqual({ enabledPlugins: {} });
  });

  it("enabled by a project's settings, waits for the person's trust", async () => {
    const sandbox = freshSandbox();
    await plugin(sandbox, "marketplace", "add", writeMarketplace(join(sandbox.home, "..", "m")));
    await plugin(sandbox, "install", "demo@fixture");
    await plugin(sandbox, "disable", "demo@fixture");
    // The repository's own settings turn it on.
    put(
      sandbox.workspace,
      ".agentloop/settings.json",
      JSON.stringify({ enabledPlugins: { "demo@fixture": true } }),
    );
    const waiting = await session(sandbox, [reply(text("Hi."))]);
    expect(waiting.stderr).toContain("enabledPlugins");
    expect(waiting.stderr).toContain("not applied");
    expect(waiting.system).not.toContain("demo:review");

    const userFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    const user = JSON.parse(readFileSync(userFile, "utf8")) as Record<string, unknown>;
    writeFileSync(userFile, JSON.stringify({ ...user, allowProjectSettings: [sandbox.workspace] }));
    const trusted = await session(sandbox, [reply(text("Hi."))]);
    expect(trusted.system).toContain("demo:review");
    expect(trusted.toolNames).toContain("mcp__plugin_demo_tools__echo");
  });

  it("installed with --scope project by the person, loads at once; enabled but not installed, says how to install it", async () => {
    const sandbox = freshSandbox();
    await plugin(sandbox, "marketplace", "add", writeMarketplace(join(sandbox.home, "..", "m")));
    const installed = await plugin(sandbox, "install", "demo@fixture", "--scope", "project");
    const projectFile = join(sandbox.workspace, ".agentloop", "settings.json");
    expect(installed.stdout).toContain(`Installed and enabled demo@fixture (${projectFile}).`);
    const project = JSON.parse(readFileSync(projectFile, "utf8")) as Record<string, unknown>;
    expect(project).toEqual({ enabledPlugins: { "demo@fixture": true } });
    const on = await session(sandbox, [reply(text("Hi."))]);
    expect(on.stderr).not.toContain("not applied");
    expect(on.system).toContain("demo:review");

    const ghost = { enabledPlugins: { "demo@fixture": true, "ghost@fixture": true } };
    writeFileSync(projectFile, JSON.stringify(ghost));
    const userFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    put(
      dirname(userFile),
      "settings.json",
      JSON.stringify({ allowProjectSettings: [sandbox.workspace] }),
    );
    const missing = await session(sandbox, [reply(text("Hi."))]);
    expect(missing.stderr).toContain(
      `plugin "ghost@fixture" is enabled in ${projectFile} but not installed; run agentloop plugin install ghost@fixture.`,
    );
    expect(missing.system).toContain("demo:review");
  });

  it("/plugins at the REPL lists the installed plugin, enabled, and /agents its agent", async () => {
    const sandbox = freshSandbox();
    await plugin(sandbox, "marketplace", "add", writeMarketplace(join(sandbox.home, "..", "m")));
    await plugin(sandbox, "install", "demo@fixture");
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    const screen = await terminal.enter("/plugins", /demo@fixture/);
    expect(screen).toMatch(/demo@fixture\s+enabled/);
    // /agents lists the agents of the sources the session read.
    expect(await terminal.enter("/agents", /demo:reviewer/)).toContain(
      "demo:reviewer: Reviews code for the demo",
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("validate names each mistake of a broken manifest, and passes a good plugin", async () => {
    const sandbox = freshSandbox();
    const broken = join(sandbox.home, "..", "broken");
    put(broken, ".claude-plugin/plugin.json", JSON.stringify({ version: "1", skills: "skills/" }));
    const result = await plugin(sandbox, "validate", broken);
    expect(result.code).toBe(1);
    const manifest = join(broken, ".claude-plugin", "plugin.json");
    expect(result.stdout).toBe(
      [
        `✘ ${manifest}: "name" is required and must be a string.`,
        `✘ ${manifest}: "skills" path "skills/" must start with "./".`,
        "",
      ].join("\n"),
    );
    const marketplace = writeMarketplace(join(sandbox.home, "..", "good"));
    const good = await plugin(sandbox, "validate", join(marketplace, "plugins", "demo"));
    expect(good.code).toBe(0);
    expect(good.stdout).toContain("is a valid plugin");
  });

  it("refuses a plugin no added marketplace has, in one sentence", async () => {
    const sandbox = freshSandbox();
    const result = await plugin(sandbox, "install", "demo@nowhere");
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'agentloop: There is no marketplace "nowhere"; add it with agentloop plugin marketplace add PATH|GIT-URL.',
    );
  });
});
