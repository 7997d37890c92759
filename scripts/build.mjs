// Bundles the CLI and the library into dist/ with esbuild, so the CLI starts without
// resolving hundreds of module files, and emits type declarations for library users.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { oneStartChunk } from "./one-start-chunk.mjs";
import { collectStepSources } from "./step-sources.mjs";
import { bundleViewerPage } from "./viewer-page.mjs";

const { version } = JSON.parse(readFileSync("package.json", "utf8"));
// The code behind each step, collected once: the CLI carries it for the viewer, and every build
// records its id in the session files it writes (src/core/build-info.ts).
const stepSources = collectStepSources(process.cwd());

const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: false,
  logLevel: "warning",
  define: {
    AGENTLOOP_VERSION: JSON.stringify(version),
    AGENTLOOP_SOURCE_ID: JSON.stringify(stepSources.id),
  },
  // The local model engine loads native binaries from its own package: it stays a package.
  // So does sharp (image decoding), with libvips in its @img/* package. BullMQ (the Redis
  // queue of `agentloop batch`) is an optional dependency, found at run time only by those
  // who use the queue.
  external: ["node-llama-cpp", "bullmq", "sharp"],
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

// Split at dynamic imports, so a run loads only the SDK of the provider it talks to (and the
// viewer only for `agentloop view`): less to compile before the first request. What the CLI
// loads before it runs is one chunk (one-start-chunk.mjs).
rmSync("dist/chunks", { recursive: true, force: true });
await build({
  ...shared,
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  plugins: [oneStartChunk("src", "src/cli.ts")],
  // Less source to read and to hold in memory; names stay, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  banner: { js: `#!/usr/bin/env node\n${shared.banner.js}` },
  // The viewer page's script travels inside the CLI as a string (src/viewer/page-script.ts),
  // and the step sources as JSON text (src/viewer/step-sources.ts).
  define: {
    ...shared.define,
    AGENTLOOP_VIEWER_SCRIPT: JSON.stringify(await bundleViewerPage()),
    AGENTLOOP_STEP_SOURCES: JSON.stringify(JSON.stringify(stepSources)),
  },
});
await build({ ...shared, entryPoints: { index: "src/index.ts" }, outdir: "dist" });

execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
