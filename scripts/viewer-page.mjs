// Bundles the viewer page's script (src/viewer/page/) into one string. The build inlines it
// into dist/cli.js; a source checkout (tests, tsx) calls this on first use instead.
import { build } from "esbuild";

export async function bundleViewerPage() {
  const result = await build({
    entryPoints: [new URL("../src/viewer/page/main.ts", import.meta.url).pathname],
    bundle: true,
    format: "iife",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  return output.text;
}
