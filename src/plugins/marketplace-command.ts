// `agentloop plugin marketplace add PATH|GIT-URL | list | remove NAME | update [NAME]`. A folder
// is read where it is; a git URL (or a local repository, bare or not, named by a path ending in
// .git) is cloned into agentloop's state through the hardened git helper. Nothing else is
// fetched: the plugins a marketplace lists are copied only when the person installs one.

import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { gitAsync } from "../core/git.js";
import { plural } from "../core/wording.js";
import { readMarketplace } from "./marketplace.js";
import {
  type KnownMarketplace,
  marketplaceCloneDirectory,
  pluginsDirectory,
  readKnownMarketplaces,
  writeKnownMarketplaces,
} from "./store.js";

export const MARKETPLACE_USAGE =
  "Usage: agentloop plugin marketplace add PATH|GIT-URL | list | remove NAME | update [NAME]";

export interface PluginCommandIo {
  cwd: string;
  /** The real environment: where the person's settings and agentloop's state are. */
  env: NodeJS.ProcessEnv;
  stdout: (line: string) => void;
}

export async function runMarketplaceCommand(args: string[], io: PluginCommandIo): Promise<number> {
  const [action, argument, ...extra] = args;
  if (extra.length > 0) throw new ConfigError(MARKETPLACE_USAGE);
  const known = await readKnownMarketplaces(io.env);
  switch (action) {
    case "add": {
      if (!argument) throw new ConfigError(MARKETPLACE_USAGE);
      const added = await addMarketplace(argument, io, known);
      io.stdout(`Added the marketplace "${added.name}" with ${plural(added.count, "plugin")}.`);
      return EXIT.done;
    }
    case "list": {
      if (argument) throw new ConfigError(MARKETPLACE_USAGE);
      const names = Object.keys(known).sort();
      if (names.length === 0)
        io.stdout("No marketplaces: add one with agentloop plugin marketplace add PATH|GIT-URL.");
      for (const name of names)
        io.stdout(`${name}\t${describeSource(known[name] as KnownMarketplace)}`);
      return EXIT.done;
    }
    case "remove": {
      const entry = argument ? known[argument] : undefined;
      if (!argument || !entry)
        throw new ConfigError(
          `There is no marketplace "${argument ?? ""}"; see agentloop plugin marketplace list.`,
        );
      delete known[argument];
      await writeKnownMarketplaces(io.env, known);
      if (entry.source.source === "git")
        await rm(entry.installLocation, { recursive: true, force: true });
      io.stdout(
        `Removed the marketplace "${argument}"; plugins installed from it stay until uninstalled.`,
      );
      return EXIT.done;
    }
    case "update": {
      const names = argument ? [argument] : Object.keys(known).sort();
      for (const name of names) {
        const entry = known[name];
        if (!entry)
          throw new ConfigError(
            `There is no marketplace "${name}"; see agentloop plugin marketplace list.`,
          );
        if (entry.source.source === "git") {
          await git(["pull", "--ff-only", "--quiet"], {
            cwd: entry.installLocation,
            workTree: entry.installLocation,
          });
        }
        const { plugins } = readMarketplace(entry.installLocation);
        io.stdout(`Updated the marketplace "${name}": ${plural(plugins.length, "plugin")}.`);
      }
      return EXIT.done;
    }
    default:
      throw new ConfigError(MARKETPLACE_USAGE);
  }
}

/** A URL, scp-like address or path ending in .git is a repository; anything else a folder. */
function isGitSource(source: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ||
    /^[^/\s]+@[^:\s]+:/.test(source) ||
    /\.git\/?$/.test(source)
  );
}

async function addMarketplace(
  given: string,
  io: PluginCommandIo,
  known: Record<string, KnownMarketplace>,
): Promise<{ name: string; count: number }> {
  let entry: KnownMarketplace;
  let name: string;
  let count: number;
  if (isGitSource(given)) {
    // A local repository's path is made absolute, so the clone does not depend on where it ran.
    const url =
      /^[a-z][a-z0-9+.-]*:\/\//i.test(given) || isAbsolute(given) || given.includes("@")
        ? given
        : resolve(io.cwd, given);
    await mkdir(pluginsDirectory(io.env), { recursive: true });
    const staging = await mkdtemp(join(pluginsDirectory(io.env), "clone-"));
    try {
      await git(["clone", "--quiet", "--no-recurse-submodules", "--", url, staging], {
        cwd: io.cwd,
      });
      const marketplace = readMarketplace(staging);
      ({ name } = marketplace);
      count = marketplace.plugins.length;
      refuseTaken(name, known);
      const installLocation = marketplaceCloneDirectory(io.env, name);
      await rm(installLocation, { recursive: true, force: true });
      await mkdir(join(installLocation, ".."), { recursive: true });
      await rename(staging, installLocation);
      entry = { source: { source: "git", url }, installLocation };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } else {
    const path = resolve(io.cwd, given);
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      throw new ConfigError(`${path} is not a folder (or a git URL) holding a marketplace.`);
    }
    const marketplace = readMarketplace(path);
    ({ name } = marketplace);
    count = marketplace.plugins.length;
    refuseTaken(name, known);
    entry = { source: { source: "directory", path }, installLocation: path };
  }
  known[name] = entry;
  await writeKnownMarketplaces(io.env, known);
  return { name, count };
}

function refuseTaken(name: string, known: Record<string, KnownMarketplace>): void {
  if (known[name]) {
    throw new ConfigError(
      `A marketplace named "${name}" is already added (${describeSource(known[name])}); remove it first, or update it.`,
    );
  }
}

function describeSource(entry: KnownMarketplace): string {
  return entry.source.source === "git" ? `git ${entry.source.url}` : `folder ${entry.source.path}`;
}

/** git through the hardened helper; its own words when it fails, in one sentence. */
async function git(args: string[], run: { cwd: string; workTree?: string }): Promise<string> {
  try {
    return await gitAsync(args, { ...run, timeoutMs: 120_000 });
  } catch (error) {
    const said = String((error as { stderr?: string }).stderr ?? "")
      .trim()
      .split("\n")
      .at(-1);
    throw new ConfigError(`git ${args[0]} failed: ${said || (error as Error).message}`);
  }
}
