// The goal is not judged on half-done work: while background tasks run, its check waits for
// every one of them to end (or for the run to be interrupted).

import type { BackgroundTasks } from "../background/tasks.js";

export async function tasksEnded(tasks: BackgroundTasks, signal: AbortSignal): Promise<void> {
  while (tasks.running().length > 0 && !signal.aborted) {
    await new Promise<void>((resolve) => {
      const done = () => {
        stopListening();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const stopListening = tasks.onEnd(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
