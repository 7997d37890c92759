// The page's script, ready to inline into the HTML. `npm run build` bundles it into the CLI as
// a constant (see scripts/build.mjs), so the published package needs no asset files; running
// from source bundles it once, on first use, with the same helper.

declare const AGENTLOOP_VIEWER_SCRIPT: string | undefined;

let cached: Promise<string> | undefined;

export function viewerPageScript(): Promise<string> {
  if (typeof AGENTLOOP_VIEWER_SCRIPT === "string") return Promise.resolve(AGENTLOOP_VIEWER_SCRIPT);
  cached ??= bundleFromSource();
  return cached;
}

async function bundleFromSource(): Promise<string> {
  // Not a literal specifier, so neither tsc nor the CLI bundle tries to follow it.
  const helper = new URL("../../scripts/viewer-page.mjs", import.meta.url).href;
  const { bundleViewerPage } = (await import(helper)) as { bundleViewerPage(): Promise<string> };
  return bundleViewerPage();
}
