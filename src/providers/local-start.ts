// Starting --provider local for the CLI: find or download the model file, showing its size and
// a progress bar, then load it. Kept apart from the provider so that library users can load a
// file they already have with createLocalProvider alone.

import { ConfigError } from "../core/errors.js";
import { formatProgress } from "./download-progress.js";
import { createLocalProvider, type LocalProvider } from "./local.js";
import { resolveLocalModel } from "./local-model.js";

export interface LocalStart {
  /** --model: a path, hf:OWNER/REPO/FILE.gguf or a URL; undefined for the default model. */
  reference: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where the download's progress goes (stderr); the bar is drawn only on a terminal. */
  progress: NodeJS.WritableStream & { isTTY?: boolean };
  onRepair?: (description: string) => void;
}

export async function startLocalProvider(start: LocalStart): Promise<LocalProvider> {
  const began = performance.now();
  let resumedFrom = 0;
  let name = "";
  const file = await resolveLocalModel(start.reference, {
    env: start.env,
    cwd: start.cwd,
    onDownloadStart(info) {
      name = info.name;
      resumedFrom = info.resumingFrom;
      const size = info.bytes === null ? "size unknown" : `${(info.bytes / 1e9).toFixed(1)} GB`;
      const resuming = info.resumingFrom > 0 ? ", resuming an earlier download" : "";
      start.progress.write(
        `agentloop: downloading ${info.name} (${size}${resuming}) once, to ${info.destination}\n`,
      );
    },
    onProgress(progress) {
      if (!start.progress.isTTY) return;
      const line = formatProgress(
        progress.receivedBytes,
        progress.totalBytes,
        performance.now() - began,
        { name, resumedFrom },
      );
      start.progress.write(`\r${line}\x1b[K`);
    },
  });
  if (name && start.progress.isTTY) start.progress.write("\n");
  return createLocalProvider({
    modelPath: file.path,
    model: file.name,
    threads: threadsChosen(start.env),
    onRepair: start.onRepair,
  });
}

/**
 * LLAMA_ARG_THREADS, the variable llama.cpp's own llama-server reads for --threads: on a machine
 * busy with other work, fewer threads than cores keep llama.cpp's threads from waiting on each other.
 */
function threadsChosen(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.LLAMA_ARG_THREADS;
  if (raw === undefined || raw === "") return undefined;
  const threads = Number(raw);
  if (!Number.isInteger(threads) || threads < 1) {
    throw new ConfigError(
      `LLAMA_ARG_THREADS must be a whole number of threads, at least 1, not "${raw}".`,
    );
  }
  return threads;
}
