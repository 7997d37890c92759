// An esbuild plugin for the CLI's bundle: everything `src/cli.ts` loads before it runs goes into
// one chunk, instead of the fifty esbuild made of it. esbuild puts a module in the chunk of the
// entry points that reach it, and every module the CLI imports on demand (a command, a provider,
// the REPL) is an entry point of its own: each reached another part of the start-up code, which
// was cut into a chunk per combination, 100 B to 260 KB, each loaded, resolved and linked apart
// (about 1 ms of CPU a module: docs/development.md, "Start-up"). Each of those modules is made
// to import `src/cli.ts` as well, which costs nothing when it runs (the CLI started it, so
// `cli.ts` is loaded already) and makes every entry reach all of the start-up code alike.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** `import("./x.js")` with a literal relative path: a module the CLI loads on demand. */
const ON_DEMAND = /\bimport\(\s*"(\.{1,2}\/[^"]+)\.js"\s*\)/g;

/** The plugin, for the bundle whose entry point is `entry` (a source file under `sources`). */
export function oneStartChunk(sources, entry) {
  const start = resolve(entry);
  const onDemand = modulesLoadedOnDemand(resolve(sources));
  return {
    name: "one-start-chunk",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!onDemand.has(args.path)) return undefined;
        const source = readFileSync(args.path, "utf8");
        return { contents: `import ${JSON.stringify(start)};\n${source}`, loader: "ts" };
      });
    },
  };
}

/** Every source file that one under `directory` imports with `import()`. */
function modulesLoadedOnDemand(directory) {
  const found = new Set();
  for (const file of sourceFiles(directory)) {
    for (const [, path] of readFileSync(file, "utf8").matchAll(ON_DEMAND))
      found.add(resolve(dirname(file), `${path}.ts`));
  }
  return found;
}

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}
