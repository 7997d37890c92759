// Checkpoints as a part: one before every prompt (its screen is the last one asked, so it runs
// once each prompt is admitted), the file tools' files saved before their first change in that
// prompt (the tool-call hooks see each call, a subagent's too), and how the prompt left things
// once it stopped. The work tree's snapshot is taken while the model thinks: the request does not
// wait for it, and the first call that may change a file (any call but a read-only one) does. /rewind takes the code and the conversation back to an earlier prompt;
// a resumed session goes on from the conversation its rewinds left.

import { relative } from "node:path";
import { ConfigError } from "../core/errors.js";
import type { LoopEvent, PartEvent } from "../core/events.js";
import type { HistoryStart, PartCommand, PartHost, SessionPart } from "../core/part.js";
import { resolveToolPath } from "../core/tool-path.js";
import { readSession } from "../session/session-file.js";
import { beforeWhat, checkpointNamed, isCheckpointName, nextName } from "./checkpoint-names.js";
import { AT_THE_REPL, scopeOf } from "./command-place.js";
import { checkpointLines, planLines, resultLines } from "./describe.js";
import { historyAfterRewinds } from "./history.js";
import { checkpointData, createRecorder, type Recorder } from "./recorder.js";
import {
  appendRecord,
  checkpointEvent,
  leftEvent,
  PART_NAME,
  savedEvent,
  snapshotEvent,
} from "./records.js";
import { previewRewind, type RewindRequest, readCheckpointLog, rewindSession } from "./rewind.js";

/** The tools whose calls change the file named by their `file_path`. */
const FILE_TOOLS = new Set(["write", "edit"]);

export function createCheckpointsPart(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
}): SessionPart {
  const { cwd, env } = options;
  let host: PartHost | null = null;
  let recorder: Recorder | null = null;
  /**
   * The session's latest checkpoint (the records' running number), the latest one whose prompt
   * has said how it left things, and the name of the next prompt's.
   */
  let latest = 0;
  let leftFor = 0;
  let nextPrompt = "1";
  /** Whether a call that may change files ran in this prompt. */
  let changing = false;
  const waiting: LoopEvent[] = [];
  /** Snapshots still being taken, and the records they will write: closing waits for them. */
  const inFlight = new Set<Promise<unknown>>();
  const keepTrack = (work: Promise<unknown>) => {
    const tracked = work.catch(() => undefined).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };
  /** The /rewind asked once: asking the same again does it. */
  let shown: string | null = null;
  const sessionFile = () => `${(host as PartHost).directory()}.jsonl`;
  const data = () => checkpointData((host as PartHost).directory(), cwd, env);
  const readLog = () => readCheckpointLog(sessionFile(), cwd, data);
  /**
   * The part's records go straight to the session file rather than through the event stream:
   * every part event is also a line in the terminal, and a checkpoint is for /rewind, not for
   * reading at each prompt.
   */
  const record = (event: PartEvent) => appendRecord(sessionFile(), event);
  const note = (line: string): PartEvent => ({
    type: "part",
    part: PART_NAME,
    name: "notice",
    line,
  });

  function sessionBegan(start: HistoryStart): void {
    if (start === "compact" || !host) return;
    recorder = null;
    latest = 0;
    leftFor = 0;
    nextPrompt = "1";
    shown = null;
    if (start !== "resume") return;
    try {
      const { log, finished } = readLog();
      if (finished) waiting.push(note(finished));
      latest = Math.max(0, ...log.checkpoints.map((checkpoint) => checkpoint.number));
      leftFor = latest;
      nextPrompt = nextName(log, "prompt");
      const history = historyAfterRewinds(readSession(sessionFile()).entries);
      if (history) host.replaceHistory(history);
    } catch (error) {
      waiting.push(note(`checkpoints could not be read: ${(error as Error).message}`));
    }
  }

  const rewind: PartCommand = {
    name: "/rewind",
    argument: "[N ...]",
    help: "list the checkpoints; N [code|conversation] [force] takes the session back to before prompt N (rN: before rewind N)",
    async run(argument) {
      // A rewind compares with the snapshots: those still being taken are waited for.
      await recorder?.settled();
      const words = argument.split(/\s+/).filter(Boolean);
      if (words.length === 0) {
        return [
          ...checkpointLines(readLog().log),
          "/rewind N takes the session back to before prompt N; /rewind rN undoes rewind rN.",
        ].join("\n");
      }
      const request = rewindRequest(words, sessionFile(), cwd, env);
      const scope = scopeOf(request);
      const key = AT_THE_REPL.rewind(request.name, request);
      if (shown !== key) {
        const prompt = checkpointNamed(readLog().log, request.name, AT_THE_REPL).prompt;
        const plan = request.code ? planLines(previewRewind(request), cwd) : [];
        shown = key;
        return [
          `Rewind the ${scope} to before ${beforeWhat(request.name)} (${prompt}):`,
          ...plan,
          `Enter ${key} again to do it.`,
        ].join("\n");
      }
      shown = null;
      const result = rewindSession(request);
      if (result.history) host?.replaceHistory(result.history);
      latest = result.taken;
      leftFor = latest;
      return resultLines(result, cwd, AT_THE_REPL).join("\n");
    },
  };

  return {
    name: PART_NAME,
    attach(given) {
      host = given;
    },
    historyStarted: sessionBegan,
    async screenPrompt(prompt) {
      shown = null;
      changing = false;
      try {
        recorder ??= createRecorder(data(), cwd);
        latest += 1;
        const file = sessionFile();
        const { checkpoint, tree } = recorder.checkpointInBackground(latest, firstLine(prompt));
        // @step checkpoints.checkpoint: Before each prompt, a checkpoint records the files.
        const name = nextPrompt;
        record(checkpointEvent(checkpoint, "prompt", name));
        nextPrompt = String(Number(name) + 1);
        if (checkpoint.pending) keepTrack(recordSnapshot(file, checkpoint.number, name, tree));
      } catch (error) {
        // @step checkpoints.notice: A checkpoint that fails is told in a notice; the prompt goes on.
        waiting.push(note(`no checkpoint before this prompt: ${(error as Error).message}`));
      }
      return null;
    },
    toolHooks: {
      async beforeCall(call, signal, tool) {
        // A call that may change a file waits until the snapshots begun before it are taken.
        const readOnly = tool?.isReadOnly?.(call.input as Record<string, unknown>) === true;
        if (recorder && !readOnly) {
          changing = true;
          await until(recorder.settled(), signal);
        }
        const path = (call.input as { file_path?: unknown }).file_path;
        if (recorder && FILE_TOOLS.has(call.name) && typeof path === "string") {
          // @step checkpoints.file_saved: A file is saved before write or edit first changes it.
          const saved = recorder.saveBefore(resolveToolPath(cwd, path));
          if (saved) record(savedEvent(saved, "prompt", relative(cwd, saved.path)));
        }
        return {};
      },
      afterCall: async (_call, result) => result,
    },
    eventsBefore: () => waiting.splice(0),
    eventsAfter(event) {
      if (event.type !== "stop" || !recorder || leftFor === latest) return [];
      leftFor = latest;
      const file = sessionFile();
      if (changing && !recorder.busy()) {
        // A snapshot taken later would count the person's own first edits as the prompt's: a
        // prompt that changed files is snapshot as it stops, before the person can change one.
        try {
          // @step checkpoints.left: Once the prompt stopped, the files it changed are recorded.
          const left = recorder.leave();
          if (left) record(leftEvent(left, "prompt"));
          return [];
        } catch (error) {
          const why = (error as Error).message;
          return [note(`how the prompt left the files could not be recorded: ${why}`)];
        }
      }
      // A prompt that changed nothing left the work tree as its checkpoint found it.
      const leaving = (changing ? recorder.leaveInBackground() : recorder.leaveUnchanged()).then(
        (left) => {
          if (left) appendRecord(file, leftEvent(left, "prompt"));
        },
      );
      keepTrack(
        leaving.catch((error) => {
          const why = (error as Error).message;
          waiting.push(note(`how the prompt left the files could not be recorded: ${why}`));
        }),
      );
      return [];
    },
    async close() {
      await Promise.all(inFlight);
      return [];
    },
    commands: [rewind],
  };
}

/** Writes a pending checkpoint's snapshot to `file` (the session's when it was taken) once it is taken. */
async function recordSnapshot(
  file: string,
  checkpoint: number,
  name: string,
  tree: Promise<string | null>,
): Promise<void> {
  try {
    // @step checkpoints.snapshot: The work tree's snapshot, taken while the model thought, is recorded.
    appendRecord(file, snapshotEvent({ checkpoint, tree: await tree }, name));
  } catch (error) {
    const why = firstLine((error as { stderr?: string }).stderr || (error as Error).message);
    appendRecord(file, snapshotEvent({ checkpoint, tree: null, error: why }, name));
  }
}

/** Resolves when `work` is done or `signal` is aborted, whichever comes first. */
function until(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = () => resolve();
    signal.addEventListener("abort", stop, { once: true });
    work.then(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    });
  });
}

function firstLine(prompt: string): string {
  const line = prompt.trim().split("\n")[0] ?? "";
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}

/**
 * `N [code|conversation] [force]`, as /rewind takes it; the words may also be written as the
 * shell's flags (`--force`), which a person who read `agentloop rewind --help` will type.
 */
function rewindRequest(
  words: string[],
  sessionFile: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): RewindRequest {
  const [name = "", ...rest] = words;
  const options = rest.map((word) => word.replace(/^--/, ""));
  const unknown = options.find((word) => !["code", "conversation", "force"].includes(word));
  if (!isCheckpointName(name) || unknown !== undefined) {
    throw new ConfigError(
      "Use /rewind N [code|conversation] [force], N a prompt or rN a rewind of /rewind's list.",
    );
  }
  const code = options.includes("code") || !options.includes("conversation");
  const conversation = options.includes("conversation") || !options.includes("code");
  const force = options.includes("force");
  return { sessionFile, cwd, env, name, code, conversation, force, place: AT_THE_REPL };
}
