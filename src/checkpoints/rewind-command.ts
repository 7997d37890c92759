// `agentloop rewind`, for scripts and for people outside the REPL: list a session's checkpoints,
// or take it back to just before prompt N. No model and no key: it reads the session file, the
// blobs and the shadow repository beside it, and appends its records to that file.

import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { checkpointNamed, isCheckpointName, nameOf } from "./checkpoint-names.js";
import { IN_THE_SHELL } from "./command-place.js";
import { checkpointLines, NOT_TRACKED, resultLines } from "./describe.js";
import { type CheckpointData, checkpointData } from "./recorder.js";
import type { CheckpointLog } from "./records.js";
import { readCheckpointLog, rewindSession, sessionDirectoryOf } from "./rewind.js";
import { findSessionFile } from "./session-choice.js";

export const REWIND_USAGE = `Usage:
  agentloop rewind --list              the checkpoints of the latest session in this directory
  agentloop rewind N                   take code and conversation back to just before prompt N
  agentloop rewind N --code            the files only
  agentloop rewind N --conversation    the conversation only (the next --continue goes on from there)
  agentloop rewind rN                  undo rewind rN: back to just before it

Options:
  --resume ID                          another session than the latest
  --force                              also overwrite files changed since agentloop left them
  --output-format text|json            json: one object, for scripts
  --cwd DIR                            the directory whose sessions are meant`;

export interface RewindIO {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function runRewindCommand(argv: string[], io: RewindIO): number {
  const options = parseRewindArguments(argv, io.cwd);
  if (options === "help") {
    io.stdout(REWIND_USAGE);
    return EXIT.done;
  }
  const { json } = options;
  const { path: sessionFile, cwd } = findSessionFile(io.env, options.cwd, options.resume);
  const data = () => checkpointData(sessionDirectoryOf(sessionFile), cwd, io.env);
  const { log, finished } = readCheckpointLog(sessionFile, cwd, data);
  if (finished) io.stderr(`agentloop: ${finished}`);
  if (options.name === undefined) {
    if (json) io.stdout(JSON.stringify({ session: sessionFile, checkpoints: listed(log) }));
    else for (const line of checkpointLines(log)) io.stdout(line);
    return EXIT.done;
  }
  const target = checkpointNamed(log, options.name, IN_THE_SHELL);
  const { code, conversation } = options;
  const broken = code ? unreadableStore(log, target.number, options.name, data()) : null;
  if (broken) {
    io.stderr(`agentloop: ${broken}`);
    return EXIT.runtimeError;
  }
  const result = rewindSession({
    ...options,
    cwd,
    name: options.name,
    sessionFile,
    env: io.env,
    place: IN_THE_SHELL,
  });
  const shown = (path: string) => relative(cwd, path);
  if (json) {
    io.stdout(
      JSON.stringify({
        session: sessionFile,
        checkpoint: asShown(result.name),
        code,
        conversation,
        restored: result.restored.map(shown),
        removed: result.removed.map(shown),
        left_alone: result.leftAlone.map((kept) => ({
          path: shown(kept.path),
          reason: kept.reason,
        })),
        bash_tracked: result.bashTracked,
        ...(result.bashTracked || !code ? {} : { notice: NOT_TRACKED }),
        undo: result.undo,
      }),
    );
  } else {
    for (const line of resultLines(result, cwd, IN_THE_SHELL)) io.stdout(line);
  }
  const nothingRestored = result.restored.length + result.removed.length === 0;
  return code && nothingRestored && result.leftAlone.length > 0 ? EXIT.runtimeError : EXIT.done;
}

/**
 * Why the store cannot give back what a rewind to `number` needs (the shadow repository deleted
 * or its objects damaged, a saved file's blob gone), asked before anything is recorded: a rewind
 * that fails half-way would leave a checkpoint of its own behind, one that never finished.
 */
function unreadableStore(
  log: CheckpointLog,
  number: number,
  name: string,
  data: CheckpointData,
): string | null {
  const trees = [
    log.checkpoints.find((checkpoint) => checkpoint.number === number)?.tree,
    log.left.findLast((left) => left.checkpoint >= number && left.tree !== null)?.tree,
  ].filter((tree): tree is string => typeof tree === "string");
  const blobs = log.saved.flatMap((saved) =>
    saved.checkpoint >= number && saved.before.kind === "file" ? [saved.before.blob] : [],
  );
  const said = (store: string) =>
    `The checkpoints of this session cannot be read (their store, ${store}, was deleted or damaged), so nothing was rewound; agentloop rewind ${name} --conversation still takes the conversation back.`;
  try {
    for (const tree of trees) {
      if (!data.shadow) throw new Error("no shadow repository");
      data.shadow.files(tree);
    }
  } catch {
    return said(data.shadow?.store ?? dirname(data.blobs));
  }
  if (blobs.some((blob) => !existsSync(join(data.blobs, blob)))) return said(data.blobs);
  return null;
}

/** A prompt's checkpoint as its number, a rewind's as its name ("r1"): what `rewind` takes. */
function asShown(name: string): number | string {
  return /^\d+$/.test(name) ? Number(name) : name;
}

function listed(log: ReturnType<typeof readCheckpointLog>["log"]) {
  return log.checkpoints.map((checkpoint) => ({
    kind: checkpoint.kind,
    number: asShown(nameOf(log, checkpoint.number)),
    at: checkpoint.at,
    prompt: checkpoint.prompt,
    files: log.left.findLast((left) => left.checkpoint === checkpoint.number)?.changed ?? null,
  }));
}

const FLAGS = {
  list: { type: "boolean" },
  code: { type: "boolean" },
  conversation: { type: "boolean" },
  force: { type: "boolean" },
  resume: { type: "string", short: "r" },
  "output-format": { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parseRewindArguments(argv: string[], currentDirectory: string) {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(
      `${(error as Error).message}. Run agentloop rewind --help for the options.`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help) return "help" as const;
  const format = values["output-format"] ?? "text";
  if (format !== "text" && format !== "json") {
    throw new ConfigError(
      `--output-format must be text or json for agentloop rewind, got "${format}".`,
    );
  }
  if (values.code && values.conversation) {
    throw new ConfigError(
      "Use --code or --conversation, not both (without either, both are rewound).",
    );
  }
  const [first, ...rest] = positionals;
  if (rest.length > 0 || (first === undefined) === (values.list !== true)) {
    throw new ConfigError(
      "Use agentloop rewind --list, or agentloop rewind N with N from that list.",
    );
  }
  if (first !== undefined && !isCheckpointName(first)) {
    throw new ConfigError(
      `The checkpoint must be a prompt's number (1, 2, ...) or a rewind's name (r1, ...), got "${first}".`,
    );
  }
  return {
    cwd: resolve(currentDirectory, values.cwd ?? "."),
    json: format === "json",
    name: first,
    code: values.conversation !== true,
    conversation: values.code !== true,
    force: values.force === true,
    resume: values.resume,
  };
}
