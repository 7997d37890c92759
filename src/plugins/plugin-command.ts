// `agentloop plugin ...`: Claude Code's plugin commands. `install NAME@MARKETPLACE` copies the
// plugin from a marketplace the person added into agentloop's cache and enables it in the
// scope's settings, showing what its hooks and MCP servers run (installing approves them as the
// person's own); `enable`, `disable`, `uninstall`, `list`; `validate PATH` names each mistake of
// a plugin or a marketplace; `marketplace ...` is marketplace-command.ts.

import { cpSync, existsSync, realpathSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { isWithin } from "../core/own-file.js";
import { isRecord } from "../core/settings.js";
import { SCOPES, type Scope, setEnabled } from "./enablement.js";
import { readPluginFolder } from "./manifest.js";
import { marketplaceFile, readMarketplace } from "./marketplace.js";
import {
  MARKETPLACE_USAGE,
  type PluginCommandIo,
  runMarketplaceCommand,
} from "./marketplace-command.js";
import { pluginLines } from "./plugin-list.js";
import { installedPluginDirectory, parsePluginId, readKnownMarketplaces } from "./store.js";

const USAGE = [
  "Usage: agentloop plugin install|enable|disable|uninstall NAME@MARKETPLACE [--scope user|project|local]",
  "       agentloop plugin list | validate PATH",
  `       ${MARKETPLACE_USAGE.replace("Usage: ", "")}`,
].join("\n");

export async function runPluginCommand(argv: string[], io: PluginCommandIo): Promise<number> {
  if (argv[0] === "marketplace") return runMarketplaceCommand(argv.slice(1), io);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}.\n${USAGE}`);
  }
  const [action, argument, ...extra] = parsed.positionals;
  const scope = parsed.values.scope ?? "user";
  if (!SCOPES.includes(scope as Scope)) {
    throw new ConfigError(`--scope is "${scope}"; use user, project or local.`);
  }
  const where = { scope: scope as Scope, workspace: io.cwd, env: io.env };
  if (extra.length > 0) throw new ConfigError(USAGE);
  switch (action) {
    case "list":
      if (argument) throw new ConfigError(USAGE);
      for (const line of await pluginLines({ workspace: io.cwd, env: io.env })) io.stdout(line);
      return EXIT.done;
    case "validate":
      if (!argument) throw new ConfigError(USAGE);
      return validate(resolve(io.cwd, argument), io);
    case "install":
    case "enable":
    case "disable":
    case "uninstall": {
      const named = argument ? parsePluginId(argument) : null;
      if (!argument || !named)
        throw new ConfigError(`Name the plugin as NAME@MARKETPLACE.\n${USAGE}`);
      const installed = installedPluginDirectory(io.env, named);
      if (action === "install") await install(named, installed, io);
      else if (action !== "disable" && !existsSync(installed)) {
        throw new ConfigError(
          `The plugin "${argument}" is not installed; see agentloop plugin list.`,
        );
      }
      if (action === "uninstall") await rm(installed, { recursive: true, force: true });
      const on = action === "uninstall" ? undefined : action !== "disable";
      const { file, waits } = await setEnabled(where, argument, on);
      const done = {
        install: "Installed and enabled",
        enable: "Enabled",
        disable: "Disabled",
        uninstall: "Uninstalled",
      }[action];
      io.stdout(`${done} ${argument} (${file}).`);
      if (waits) {
        io.stdout(
          `${file} waits for your trust, so the plugin is not loaded until you approve that file.`,
        );
      }
      return EXIT.done;
    }
    default:
      throw new ConfigError(USAGE);
  }
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: { scope: { type: "string" } } });
}

/** Copies the plugin from its marketplace into the cache, replacing an earlier copy. */
async function install(
  named: { name: string; marketplace: string },
  installed: string,
  io: PluginCommandIo,
): Promise<void> {
  const known = (await readKnownMarketplaces(io.env))[named.marketplace];
  if (!known) {
    throw new ConfigError(
      `There is no marketplace "${named.marketplace}"; add it with agentloop plugin marketplace add PATH|GIT-URL.`,
    );
  }
  const marketplace = readMarketplace(known.installLocation);
  const entry = marketplace.plugins.find((plugin) => plugin.name === named.name);
  if (!entry) {
    const names = marketplace.plugins.map((plugin) => plugin.name).join(", ") || "none";
    throw new ConfigError(
      `The marketplace "${named.marketplace}" has no plugin "${named.name}" (it has: ${names}).`,
    );
  }
  if (!entry.folder) {
    throw new ConfigError(
      `The plugin "${named.name}" comes from ${JSON.stringify(entry.source)}; agentloop installs only plugins inside their marketplace ("./path").`,
    );
  }
  if (!existsSync(entry.folder)) {
    throw new ConfigError(
      `The plugin "${named.name}" is listed, but ${entry.folder} does not exist.`,
    );
  }
  // A marketplace's link may not hand over a folder outside it (your home, say) as a plugin.
  if (!isWithin(realpathSync(known.installLocation), realpathSync(entry.folder))) {
    throw new ConfigError(
      `The plugin "${named.name}" leads out of its marketplace; not installed.`,
    );
  }
  const read = readPluginFolder(entry.folder, named.name);
  if (read.name !== named.name)
    read.problems.push(`${entry.folder} names itself "${read.name}", not "${named.name}".`);
  if (read.problems.length > 0) throw new ConfigError(`Not installed: ${read.problems.join(" ")}`);
  const staging = `${installed}.installing`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(dirname(staging), { recursive: true });
  // Links are copied as links: a file read later must lead inside the copy (core/own-file.ts).
  cpSync(entry.folder, staging, {
    recursive: true,
    filter: (source) => basename(source) !== ".git",
  });
  await rm(installed, { recursive: true, force: true });
  await rename(staging, installed);
  for (const line of whatItRuns(readPluginFolder(installed, named.name))) io.stdout(line);
}

/** Its hooks' and servers' commands as written, which installing approves as the person's own. */
function whatItRuns(plugin: ReturnType<typeof readPluginFolder>): string[] {
  const lines: string[] = [];
  for (const { settings } of plugin.components.hooks) {
    if (!isRecord(settings.hooks)) continue;
    for (const [event, groups] of Object.entries(settings.hooks)) {
      for (const group of Array.isArray(groups) ? groups : []) {
        const matcher =
          isRecord(group) && typeof group.matcher === "string" ? ` (${group.matcher})` : "";
        const hooks = isRecord(group) && Array.isArray(group.hooks) ? group.hooks : [];
        for (const hook of hooks) {
          if (isRecord(hook)) lines.push(`  hook ${event}${matcher} runs: ${String(hook.command)}`);
        }
      }
    }
  }
  for (const { servers } of plugin.components.mcpServers) {
    for (const [name, server] of Object.entries(servers)) {
      if (!isRecord(server)) continue;
      const runs =
        server.url ??
        [server.command, ...(Array.isArray(server.args) ? server.args : [])].join(" ");
      lines.push(`  MCP server ${name} runs: ${String(runs)}`);
    }
  }
  return lines.length > 0 ? ["It runs, as your own hooks and servers do:", ...lines] : [];
}

/** A plugin's folder, or a marketplace's with each plugin inside it: every mistake, named. */
async function validate(path: string, io: PluginCommandIo): Promise<number> {
  if (!existsSync(path)) throw new ConfigError(`${path} does not exist.`);
  const problems: string[] = [];
  if (existsSync(marketplaceFile(path))) {
    try {
      for (const entry of readMarketplace(path).plugins) {
        if (entry.folder) problems.push(...readPluginFolder(entry.folder, entry.name).problems);
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
    }
  } else {
    // Without a manifest the folder names it, as Claude Code names a plugin loaded from a folder.
    problems.push(...readPluginFolder(path, basename(path)).problems);
  }
  if (problems.length === 0) {
    io.stdout(
      `${path} is a valid ${existsSync(marketplaceFile(path)) ? "marketplace" : "plugin"}.`,
    );
    return EXIT.done;
  }
  for (const problem of problems) io.stdout(`✘ ${problem}`);
  return EXIT.runtimeError;
}
