// Work kept out of start-up, done on the session's first tool call.

import { initShellParser } from "../permissions/policy.js";
import { archiveStepSources } from "../session/source-archive.js";

/**
 * Work kept out of start-up, where it would delay the first request, and done on the first
 * tool call: loading the shell parser, and two V8 settings for a long session, each read by V8
 * when it applies.
 * - tree-sitter-bash is 1.3 MB of WebAssembly parse tables. After its first parses V8 compiles
 *   them again with its optimizing compiler, in the background, holding some 40 MB more, for a
 *   parser that reads one short command line per tool call; baseline code parses one in about
 *   0.04 ms. The other WebAssembly, fetch's HTTP parser, was compiled before, as usual.
 * - The young generation has grown to what start-up needed. It would otherwise keep doubling,
 *   up to 32 MB, whenever enough survives a scavenge, only to hold each turn's garbage longer.
 * - The first session of a build keeps that build's step sources beside the sessions (see
 *   source-archive.ts), once the parser is loaded: done at the same time, the two raised the
 *   peak memory of a 100-turn session by some 5 MB (bench/cli.ts). Later sessions of the build
 *   only see the file is there. Keeping them is a convenience for the viewer: a session goes on
 *   when it fails (a full disk says so on the next write that matters).
 */
export async function afterStartUp(sessionsDir: string): Promise<void> {
  // Imported here: node:v8 takes about 3 ms to load, which start-up need not wait for.
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--liftoff-only");
  setFlagsFromString("--semi-space-growth-factor=1");
  await initShellParser();
  await archiveStepSources(sessionsDir).catch(() => {});
}
