// bare-sdk-source.mjs bundled into one file, the way scripts/build.mjs bundles agentloop, so that
// the two pay alike for loading the SDK's code.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";

/** Bundles the script into a temporary directory; returns its path. */
export async function bundleBareSdk(): Promise<string> {
  const output = join(mkdtempSync(join(tmpdir(), "agentloop-bench-sdk-")), "bare-sdk.mjs");
  await build({
    entryPoints: [resolve(import.meta.dirname, "bare-sdk-source.mjs")],
    outfile: output,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
  return output;
}
