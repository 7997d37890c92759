// An esbuild plugin for the CLI's bundle: everything `src/cli.ts` loads before it runs goes into
// one chunk, instead of the fifty esbuild made of it. esbuild puts a module in the chunk of the
// entry points that reach it, and every module the CLI imports on demand (a command, a provider,
// the REPL) is an entry point of its own: each reached another part of the start-up code, which
// was cut into a chunk per combination, 100 B to 260 KB, each loaded, resolved and linked apart
// (about 1 ms of CPU a module: docs/development.md, "Start-up"). Each of those modules is made
// to import `src/cli.ts` as well, which costs nothing when it runs (the CLI started it, so
// `cli.ts` is loaded already) and makes every entry reach all of the start-up code alike. A
// module the start-up code imports statically is in that chunk already and is left as it is: an
// import of `cli.ts` there would only make a circle, in which esbuild may run a module's top
// level before a module it reads (the list of parts, read for the chapters' flags) has run.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** `import("./x.js")` with a literal relative path: a module the CLI loads on demand. */
const ON_DEMAND = /\bimport\(\s*"(\.{1,2}\/[^"]+)\.js"\s*\)/g;
/** `import … from "./x.js"` or `export … from "./x.js"`, not `import type`: loaded with the module. */
const STATIC = /^(?:import|export)(?!\s+type\b)[^;]*?\bfrom\s*"(\.{1,2}\/[^"]+)\.js"/gm;

/** The plugin, for the bundle whose entry point is `entry` (a source file under `sources`). */
export function oneStartChunk(sources, entry) {
  const start = resolve(entry);
  const atStart = staticallyImported(start);
  const onDemand = new Set(
    [...modulesLoadedOnDemand(resolve(sources))].filter((file) => !atStart.has(file)),
  );
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

/** Every source file `entry` reaches through static imports, itself included. */
function staticallyImported(entry) {
  const reached = new Set([entry]);
  const next = [entry];
  while (next.length > 0) {
    const file = next.pop();
    for (const [, path] of readFileSync(file, "utf8").matchAll(STATIC)) {
      const imported = resolve(dirname(file), `${path}.ts`);
      if (reached.has(imported) || !existsSync(imported)) continue;
      reached.add(imported);
      next.push(imported);
    }
  }
  return reached;
}

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}
