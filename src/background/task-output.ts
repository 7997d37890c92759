// A background task's output file: everything the task printed, stdout and stderr in the
// order they came, capped in size however long the task runs. Past the cap, the oldest half is
// dropped and the file's first line says how much; memory holds no more than that half while
// it is moved, and the last bytes kept for the task's notice.

import { closeSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { count } from "../core/wording.js";
import { cleanTerminalText } from "../tools/terminal-text.js";

export const OUTPUT_CAP_BYTES = 10 * 1024 * 1024;
/** The end of the output a notice shows (the file has the rest). */
export const NOTICE_TAIL_BYTES = 2048;

export interface TaskOutput {
  readonly path: string;
  write(chunk: Buffer): void;
  /** The last NOTICE_TAIL_BYTES of output, decoded and cleaned of terminal controls. */
  tail(): string;
  /** Why the file could not be written, if it could not. */
  problem(): string | null;
  close(): void;
}

export function openTaskOutput(path: string, capBytes = OUTPUT_CAP_BYTES): TaskOutput {
  let fd: number | null = null;
  let problem: string | null = null;
  let size = 0;
  let dropped = 0;
  let last = Buffer.alloc(0);
  /** The length of the first line that counts the dropped bytes, once there is one. */
  let headerLength = 0;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Read too: past the cap, the newer half is read back to the start of the file.
    fd = openSync(path, "w+", 0o600);
  } catch (error) {
    problem = (error as Error).message;
  }

  const fail = (error: unknown) => {
    problem = (error as Error).message;
    if (fd !== null) closeSync(fd);
    fd = null;
  };

  /** Writes at the end; past the cap, keeps the newer half under a line counting the rest. */
  const put = (descriptor: number, bytes: Buffer) => {
    // Synchronous writes are the back-pressure: memory cannot pile up behind a slow disk.
    writeSync(descriptor, bytes, 0, bytes.length, size);
    size += bytes.length;
    if (size <= capBytes) return;
    const kept = Buffer.alloc(Math.floor(capBytes / 2));
    const read = readSync(descriptor, kept, 0, kept.length, size - kept.length);
    dropped += size - read - headerLength;
    const header = Buffer.from(
      `[agentloop: the first ${count(dropped)} bytes of output were dropped to keep this file under ${count(capBytes)} bytes]\n`,
    );
    ftruncateSync(descriptor, 0);
    writeSync(descriptor, header, 0, header.length, 0);
    writeSync(descriptor, kept, 0, read, header.length);
    headerLength = header.length;
    size = header.length + read;
  };

  return {
    path,
    write(chunk) {
      if (chunk.length === 0) return;
      last = Buffer.concat([last, chunk]);
      if (last.length > NOTICE_TAIL_BYTES) last = last.subarray(last.length - NOTICE_TAIL_BYTES);
      if (fd === null) return;
      try {
        put(fd, chunk);
      } catch (error) {
        fail(error);
      }
    },
    tail() {
      // A character cut at the start of the kept bytes is left out, not shown as garbage.
      let start = 0;
      while (start < 3 && ((last[start] ?? 0) & 0xc0) === 0x80) start++;
      return cleanTerminalText(last.subarray(start).toString("utf8")).trimEnd();
    },
    problem: () => problem,
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
