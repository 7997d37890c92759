// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are MCP configuration, where ${VAR} is expanded.
// Which MCP servers a session has: .mcp.json in the project, "mcpServers" in the user's
// settings, --mcp-config files; their precedence, ${VAR} expansion, and one sentence for every
// mistake.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { loadMcpServers } from "../src/mcp/config.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-mcp-config-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;

/** A fresh workspace and config home, with the files given (objects are written as JSON). */
function setup(files: { project?: unknown; user?: unknown; flags?: unknown[] } = {}) {
  const dir = join(root, String(count++));
  const workspace = join(dir, "work");
  const configHome = join(dir, "config");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(configHome, "agentloop"), { recursive: true });
  const write = (file: string, content: unknown) =>
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  const projectFile = join(workspace, ".mcp.json");
  const userFile = join(configHome, "agentloop", "settings.json");
  if (files.project !== undefined) write(projectFile, files.project);
  if (files.user !== undefined) write(userFile, files.user);
  const configFiles = (files.flags ?? []).map((content, index) => {
    const file = join(dir, `flag-${index}.json`);
    write(file, content);
    return file;
  });
  const load = (env: NodeJS.ProcessEnv = {}) =>
    loadMcpServers({ workspace, env: { XDG_CONFIG_HOME: configHome, ...env }, configFiles });
  return { dir, workspace, projectFile, userFile, configFiles, load };
}

const servers = (mcpServers: unknown) => ({ mcpServers });

describe("the formats", () => {
  it("reads a stdio server from .mcp.json, with or without its type", async () => {
    const { load, projectFile } = setup({
      project: servers({
        files: { command: "npx", args: ["-y", "server-files"], env: { LEVEL: "debug" } },
        git: { type: "stdio", command: "mcp-git" },
      }),
    });
    expect(await load()).toEqual([
      {
        name: "files",
        config: {
          type: "stdio",
          command: "npx",
          args: ["-y", "server-files"],
          env: { LEVEL: "debug" },
        },
        source: "project",
        file: projectFile,
      },
      {
        name: "git",
        config: { type: "stdio", command: "mcp-git" },
        source: "project",
        file: projectFile,
      },
    ]);
  });

  it.each(["http", "streamable-http"])(
    "reads a Streamable HTTP server written as %j",
    async (type) => {
      const { load } = setup({
        project: servers({
          api: { type, url: "https://mcp.example.com/mcp", headers: { "X-Team": "core" } },
        }),
      });
      expect((await load())[0]?.config).toEqual({
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: { "X-Team": "core" },
      });
    },
  );

  it("resolves a relative cwd against the file that names it", async () => {
    const { load, workspace } = setup({
      project: servers({ tool: { command: "./run", cwd: "tools/mcp" } }),
    });
    expect((await load())[0]?.config).toMatchObject({ cwd: join(workspace, "tools", "mcp") });
  });

  it("has no servers without any file, or with files that define none", async () => {
    expect(await setup().load()).toEqual([]);
    expect(await setup({ project: {}, user: { model: "m" } }).load()).toEqual([]);
  });

  it("reads the user's servers from their settings file", async () => {
    const { load, userFile } = setup({ user: servers({ notes: { command: "notes-mcp" } }) });
    expect(await load()).toEqual([
      {
        name: "notes",
        config: { type: "stdio", command: "notes-mcp" },
        source: "user",
        file: userFile,
      },
    ]);
  });

  it("adds the servers of every --mcp-config file", async () => {
    const { load, configFiles } = setup({
      flags: [
        servers({ a: { command: "a" } }),
        servers({ b: { type: "http", url: "http://localhost:9/mcp" } }),
      ],
    });
    expect((await load()).map(({ name, source, file }) => ({ name, source, file }))).toEqual([
      { name: "a", source: "flag", file: configFiles[0] },
      { name: "b", source: "flag", file: configFiles[1] },
    ]);
  });
});

describe("precedence on the same name", () => {
  const named = (command: string) => servers({ same: { command } });

  it.each([
    ["the project over the user", { user: named("user"), project: named("project") }, "project"],
    ["a flag over the project", { project: named("project"), flags: [named("flag")] }, "flag"],
    ["a flag over the user", { user: named("user"), flags: [named("flag")] }, "flag"],
    ["a later flag over an earlier one", { flags: [named("first"), named("second")] }, "second"],
  ])("%s", async (_title, files, winner) => {
    const loaded = await setup(files).load();
    expect(loaded).toHaveLength(1);
    expect(loaded[0]?.config).toEqual({ type: "stdio", command: winner });
  });

  it("keeps the servers of other names from every place", async () => {
    const loaded = await setup({
      user: servers({ u: { command: "u" }, same: { command: "user" } }),
      project: servers({ p: { command: "p" }, same: { command: "project" } }),
    }).load();
    expect(loaded.map((entry) => [entry.name, entry.source])).toEqual([
      ["u", "user"],
      ["same", "project"],
      ["p", "project"],
    ]);
  });
});

describe("environment variables", () => {
  it("expand in command, args, env values, cwd, url and headers", async () => {
    const { load } = setup({
      project: servers({
        local: {
          command: "${BIN}/server",
          args: ["--root", "${ROOT}"],
          env: { TOKEN: "${SECRET}", KEEP: "$PLAIN" },
          cwd: "${ROOT}",
        },
        remote: {
          type: "http",
          url: "https://${HOST}/mcp",
          headers: { Authorization: "Bearer ${SECRET}" },
        },
      }),
    });
    const loaded = await load({ BIN: "/opt/bin", ROOT: "/srv", SECRET: "s3", HOST: "h.example" });
    expect(loaded.map((entry) => entry.config)).toEqual([
      {
        type: "stdio",
        command: "/opt/bin/server",
        args: ["--root", "/srv"],
        env: { TOKEN: "s3", KEEP: "$PLAIN" },
        cwd: "/srv",
      },
      { type: "http", url: "https://h.example/mcp", headers: { Authorization: "Bearer s3" } },
    ]);
  });

  it.each([
    ["${V:-fallback}", {}, "fallback"],
    ["${V:-fallback}", { V: "" }, "fallback"],
    ["${V:-fallback}", { V: "set" }, "set"],
    ["${V:-}", {}, ""],
    ["${V}", { V: "" }, ""],
    ["a-${V}-${W:-w}", { V: "v" }, "a-v-w"],
  ])("%j with %j is %j", async (arg, env, expected) => {
    const { load } = setup({ project: servers({ s: { command: "c", args: [arg] } }) });
    expect((await load(env))[0]?.config).toMatchObject({ args: [expected] });
  });
});

describe("every mistake is one sentence naming the file and the server", () => {
  const project = (definition: unknown) => servers({ s: definition });

  it.each([
    [
      "a definition that is not an object",
      project("npx server"),
      `: the definition must be an object with "command", or "type": "http" and "url".`,
    ],
    [
      "no command",
      project({ args: ["x"] }),
      `: a stdio server needs a "command" (or use "type": "http" and a "url").`,
    ],
    [
      "a url without a type",
      project({ url: "https://h/mcp" }),
      `: it has a "url" but no "type"; add "type": "http".`,
    ],
    [
      "a command that is not a string",
      project({ command: ["npx"] }),
      `: "command" must be a string.`,
    ],
    ["an empty command", project({ command: "" }), `: "command" is empty.`],
    [
      "args that are not strings",
      project({ command: "c", args: ["--port", 8080] }),
      `: "args" must be a list of strings.`,
    ],
    [
      "args that are a string",
      project({ command: "c", args: "--port 8080" }),
      `: "args" must be a list of strings.`,
    ],
    [
      "env values that are not strings",
      project({ command: "c", env: { PORT: 8080 } }),
      `: "env" must be an object whose values are strings.`,
    ],
    ["a cwd that is not a string", project({ command: "c", cwd: 1 }), `: "cwd" must be a string.`],
    ["an http server without a url", project({ type: "http" }), `: an http server needs a "url".`],
    ["a url that is not a string", project({ type: "http", url: 1 }), `: "url" must be a string.`],
    [
      "a url that is not a URL",
      project({ type: "http", url: "localhost:8080" }),
      `: "url" must be an http:// or https:// URL, not "localhost:8080".`,
    ],
    [
      "a url of another scheme",
      project({ type: "http", url: "ws://h/mcp" }),
      `: "url" must be an http:// or https:// URL, not "ws://h/mcp".`,
    ],
    [
      "headers that are not strings",
      project({ type: "http", url: "http://h/", headers: ["a"] }),
      `: "headers" must be an object whose values are strings.`,
    ],
    [
      "an SSE server",
      project({ type: "sse", url: "https://h/sse" }),
      `: "type": "sse" is not supported; use "type": "http" (Streamable HTTP) if the server offers it.`,
    ],
    [
      "an unknown type",
      project({ type: "websocket", url: "ws://h" }),
      `: "type" is "websocket"; use "stdio" or "http".`,
    ],
    [
      "a type that is not a string",
      project({ type: 1, command: "c" }),
      `: "type" is 1; use "stdio" or "http".`,
    ],
    [
      "an unset variable",
      project({ command: "c", env: { TOKEN: "${API_TOKEN}" } }),
      `: "env.TOKEN" uses \${API_TOKEN}, which is not set; set it or write \${API_TOKEN:-default}.`,
    ],
    [
      "an unset variable in args",
      project({ command: "c", args: ["a", "${NOPE}"] }),
      `: "args[1]" uses \${NOPE}, which is not set; set it or write \${NOPE:-default}.`,
    ],
    [
      "an unset variable in headers",
      project({ type: "http", url: "http://h/", headers: { Authorization: "${T}" } }),
      `: "headers.Authorization" uses \${T}, which is not set; set it or write \${T:-default}.`,
    ],
  ])("%s", async (_title, content, problem) => {
    const { load, projectFile } = setup({ project: content });
    const error = await load().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`Server "s" in ${projectFile}${problem}`);
  });

  it.each(["my server", "dots.in.name", "ünïcode", ""])(
    "rejects the server name %j",
    async (name) => {
      const { load, projectFile } = setup({ project: servers({ [name]: { command: "c" } }) });
      await expect(load()).rejects.toThrow(
        new ConfigError(
          `Server name ${JSON.stringify(name)} in ${projectFile} may only use letters, digits, "_" and "-".`,
        ),
      );
    },
  );

  it.each([
    ["not JSON", "{ nope", (file: string) => `${file} is not valid JSON (line 1); fix it.`],
    [
      "JSON with a trailing comma",
      '{\n  "mcpServers": {},\n}',
      (file: string) => `${file} is not valid JSON (line 3); fix it.`,
    ],
    ["empty", "", (file: string) => `${file} is not valid JSON; fix it.`],
    ["not an object", "[1]", (file: string) => `${file} is not a JSON object; fix it.`],
    [
      "mcpServers not an object",
      servers(["a"]),
      (file: string) =>
        `"mcpServers" in ${file} must be an object that maps server names to definitions.`,
    ],
  ])("rejects a .mcp.json that is %s", async (_title, content, sentence) => {
    const { load, projectFile } = setup({ project: content });
    await expect(load()).rejects.toThrow(new ConfigError(sentence(projectFile)));
  });

  it("names the user's settings file for a mistake there", async () => {
    const { load, userFile } = setup({ user: servers({ u: { type: "sse", url: "https://h" } }) });
    await expect(load()).rejects.toThrow(
      `Server "u" in ${userFile}: "type": "sse" is not supported`,
    );
  });

  it("rejects an --mcp-config file that does not exist or defines no servers", async () => {
    const { load, dir, configFiles } = setup({ flags: [{ servers: {} }] });
    await expect(load()).rejects.toThrow(
      new ConfigError(
        `${configFiles[0]}, given to --mcp-config, has no "mcpServers" object; write {"mcpServers": {"name": {...}}}.`,
      ),
    );
    const missing = join(dir, "missing.json");
    const workspace = join(dir, "work");
    await expect(loadMcpServers({ workspace, env: {}, configFiles: [missing] })).rejects.toThrow(
      new ConfigError(`${missing}, given to --mcp-config, does not exist.`),
    );
  });
});
