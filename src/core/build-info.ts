// Which build of agentloop is running. scripts/build.mjs defines both constants in dist/;
// running from source (tsx, the tests) has neither. `source` is the id of the step sources
// the build carries (src/viewer/step-sources.ts): a session file records it, so the viewer can
// tell whether the code it shows is the code that ran.

declare const AGENTLOOP_VERSION: string | undefined;
declare const AGENTLOOP_SOURCE_ID: string | undefined;

export const AGENTLOOP_BUILD: { version: string; source: string | null } = {
  version: typeof AGENTLOOP_VERSION === "string" ? AGENTLOOP_VERSION : "development",
  source: typeof AGENTLOOP_SOURCE_ID === "string" ? AGENTLOOP_SOURCE_ID : null,
};
