// A counting semaphore: at most `size` holders at once, the others wait in order of arrival.

export interface Slots {
  /** Waits for a free slot; the function returned gives it back. */
  take(): Promise<() => void>;
}

export function createSlots(size: number): Slots {
  let free = size;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  return {
    async take() {
      if (free > 0) free -= 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      let released = false;
      return () => {
        if (!released) release();
        released = true;
      };
    },
  };
}
