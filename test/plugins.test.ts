// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are plugin files, where agentloop expands ${CLAUDE_PLUGIN_ROOT}.
// The plugin format and the plugin commands in process: the default layout and the manifest's
// paths, what is refused and named (paths out of the plugin, links out of it, a marketplace
// without its file), and the one sentence each bad command line gets.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { readPluginFolder } from "../src/plugins/manifest.js";
import { readMarketplace } from "../src/plugins/marketplace.js";
import { runPluginCommand } from "../src/plugins/plugin-command.js";

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-plugins-"));
  made.push(directory);
  return directory;
}

function put(root: string, path: string, content: string) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

describe("the plugin format", () => {
  it("reads the default layout without a manifest, named by its marketplace entry", () => {
    const root = scratch();
    put(root, "hooks/hooks.json", JSON.stringify({ hooks: { Stop: [] } }));
    put(root, ".mcp.json", JSON.stringify({ mcpServers: { db: { command: "db-server" } } }));
    const plugin = readPluginFolder(root, "demo");
    expect(plugin.problems).toEqual([]);
    expect(plugin.name).toBe("demo");
    expect(plugin.components.skills).toEqual([join(root, "skills")]);
    expect(plugin.components.commands).toEqual([join(root, "commands")]);
    expect(plugin.components.agents).toEqual([join(root, "agents")]);
    expect(plugin.components.hooks).toEqual([
      { file: join(root, "hooks", "hooks.json"), settings: { hooks: { Stop: [] } } },
    ]);
    expect(plugin.components.mcpServers).toEqual([
      { file: join(root, ".mcp.json"), servers: { db: { command: "db-server" } } },
    ]);
  });

  it("adds the manifest's paths to the defaults, takes hooks and servers written in it, and ignores unknown fields", () => {
    const root = scratch();
    const manifest = {
      name: "demo",
      skills: ["./more-skills"],
      agents: "./team",
      hooks: { PreToolUse: [] },
      mcpServers: { inline: { command: "${CLAUDE_PLUGIN_ROOT}/server" } },
      channels: [{ anything: true }],
    };
    put(root, ".claude-plugin/plugin.json", JSON.stringify(manifest));
    const plugin = readPluginFolder(root);
    const file = join(root, ".claude-plugin", "plugin.json");
    expect(plugin.problems).toEqual([]);
    expect(plugin.components.skills).toEqual([join(root, "skills"), join(root, "more-skills")]);
    expect(plugin.components.agents).toEqual([join(root, "agents"), join(root, "team")]);
    expect(plugin.components.hooks).toEqual([{ file, settings: manifest }]);
    expect(plugin.components.mcpServers).toEqual([{ file, servers: manifest.mcpServers }]);
  });

  it("loads the vendor-neutral layout, plugin.json and mcp.json at the root", () => {
    const root = scratch();
    put(root, "plugin.json", JSON.stringify({ name: "neutral" }));
    put(root, "mcp.json", JSON.stringify({ mcpServers: { s: { command: "s" } } }));
    const plugin = readPluginFolder(root);
    expect(plugin.name).toBe("neutral");
    expect(plugin.components.mcpServers.map((each) => each.file)).toEqual([join(root, "mcp.json")]);
  });

  it("names a path out of the plugin, a bad name and a file that is not JSON", () => {
    const root = scratch();
    const manifest = {
      name: "Demo Plugin",
      commands: "./../elsewhere",
      hooks: "./hooks/extra.json",
    };
    put(root, ".claude-plugin/plugin.json", JSON.stringify(manifest));
    put(root, "hooks/extra.json", "{not json");
    const file = join(root, ".claude-plugin", "plugin.json");
    expect(readPluginFolder(root).problems).toEqual([
      `${file}: the name "Demo Plugin" must be kebab-case (lowercase letters, digits and hyphens).`,
      `${file}: "commands" path "./../elsewhere" leads out of the plugin's folder.`,
      `${join(root, "hooks", "extra.json")} is not a JSON object.`,
    ]);
  });

  it("does not read a hooks file that links out of the plugin", () => {
    const root = scratch();
    const outside = scratch();
    put(outside, "hooks.json", JSON.stringify({ hooks: {} }));
    mkdirSync(join(root, "hooks"));
    symlinkSync(join(outside, "hooks.json"), join(root, "hooks", "hooks.json"));
    const plugin = readPluginFolder(root, "demo");
    expect(plugin.components.hooks).toEqual([]);
    expect(plugin.problems[0]).toContain(`it leads to ${join(outside, "hooks.json")}, outside`);
  });

  it("refuses a marketplace whose plugin's source leads out of it", () => {
    const root = scratch();
    put(
      root,
      ".claude-plugin/marketplace.json",
      JSON.stringify({ name: "m", owner: { name: "x" }, plugins: [{ name: "p", source: "../p" }] }),
    );
    expect(() => readMarketplace(root)).toThrow(
      `${join(root, ".claude-plugin", "marketplace.json")}: the source of "p" leads out of the marketplace.`,
    );
  });
});

describe("agentloop plugin, given a bad command line", () => {
  const io = () => {
    const home = scratch();
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      XDG_STATE_HOME: join(home, "state"),
    };
    return { cwd: home, env, stdout: () => {} };
  };
  const refusal = (argv: string[], context = io()) =>
    runPluginCommand(argv, context).then(
      () => "no refusal",
      (error: unknown) =>
        error instanceof ConfigError ? error.message : `not a ConfigError: ${error}`,
    );

  it("names what is missing or wrong, in one sentence each", async () => {
    expect(await refusal(["install", "demo"])).toMatch(/^Name the plugin as NAME@MARKETPLACE\./);
    expect(await refusal(["install", "demo@m", "--scope", "everywhere"])).toBe(
      '--scope is "everywhere"; use user, project or local.',
    );
    expect(await refusal(["enable", "demo@m"])).toBe(
      'The plugin "demo@m" is not installed; see agentloop plugin list.',
    );
    expect(await refusal(["marketplace", "remove", "m"])).toBe(
      'There is no marketplace "m"; see agentloop plugin marketplace list.',
    );
    expect(await refusal(["frobnicate"])).toMatch(/^Usage: agentloop plugin/);
  });

  it("validates a folder without a manifest, named by the folder as Claude Code names it", async () => {
    const context = io();
    const folder = join(context.cwd, "my-tools");
    put(folder, "skills/tidy/SKILL.md", "---\ndescription: Tidy up\n---\nTidy.");
    const said: string[] = [];
    const code = await runPluginCommand(["validate", folder], {
      ...context,
      stdout: (line) => said.push(line),
    });
    expect({ code, said }).toEqual({ code: 0, said: [`${folder} is a valid plugin.`] });
  });

  it("refuses a folder with no marketplace file, naming it", async () => {
    const context = io();
    expect(await refusal(["marketplace", "add", context.cwd], context)).toBe(
      `${context.cwd} has no .claude-plugin/marketplace.json.`,
    );
  });
});
