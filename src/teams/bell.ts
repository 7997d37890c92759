// What an idle teammate waits on: rung by a message for it or a change of the board, so a wait
// ends as soon as there may be work, and never polls.

export interface Bell {
  ring(): void;
  /** Resolves at the next ring (at once if it rang since the last wait), or once `until` aborts. */
  wait(until: AbortSignal): Promise<void>;
}

export function createBell(): Bell {
  let rang = false;
  let wake: (() => void) | undefined;
  return {
    ring() {
      rang = true;
      wake?.();
    },
    wait(until) {
      if (rang || until.aborted) {
        rang = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          wake = undefined;
          rang = false;
          until.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        until.addEventListener("abort", done, { once: true });
      });
    },
  };
}
