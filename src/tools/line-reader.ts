// Reading a text file line by line for the read tool: lines to skip (to reach an offset) are
// counted without being kept, and of a long line only its start is kept, so time and memory
// depend on what is shown or passed over, never on the size of the file or of a line.

import { type FileHandle, open } from "node:fs/promises";

const CHUNK_BYTES = 64 * 1024;
const SNIFF_BYTES = 8 * 1024;

export interface Line {
  /** The line without its end (`\n` or `\r\n`), only its first `maxChars` characters if longer. */
  text: string;
  /** Characters in the whole line. */
  chars: number;
}

/**
 * Reads a file line by line from the start through one reused buffer, so memory stays the
 * same whatever the size of the file or of a line. A byte order mark is not part of line 1.
 */
export class LineReader {
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private chunk = Buffer.alloc(0);
  private start = 0;
  /** Where in the file the next chunk is read from. */
  position = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Opens `path` (with `flags`: the read tool's never follow a link swapped in, nor wait on a
   * pipe); fails unless it is a regular file.
   */
  static async open(
    path: string,
    signal: AbortSignal,
    flags: string | number = "r",
  ): Promise<LineReader> {
    const handle = await open(path, flags);
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw new Error("it is not a regular file");
    }
    return new LineReader(handle, signal);
  }

  /** The whole file, from its start (an image, read whole to be decoded). */
  async readAll(): Promise<Buffer> {
    return this.handle.readFile();
  }

  /** The file's first bytes, to tell text from binary. */
  async sniff(): Promise<Buffer> {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await this.handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  }

  /** Passes over up to `n` lines; returns how many there were. */
  async skipLines(n: number): Promise<number> {
    let skipped = 0;
    let partial = false;
    while (skipped < n && (await this.fill())) {
      while (skipped < n) {
        const newline = this.chunk.indexOf(NEWLINE, this.start);
        if (newline === -1) {
          partial ||= this.start < this.chunk.length;
          this.start = this.chunk.length;
          break;
        }
        this.start = newline + 1;
        skipped += 1;
        partial = false;
      }
    }
    // The last line of a file need not end with a newline.
    return partial && skipped < n ? skipped + 1 : skipped;
  }

  /** The next line, keeping its first `maxChars` characters; null at the end of the file. */
  async nextLine(maxChars: number): Promise<Line | null> {
    // Bytes that always hold the first maxChars characters (four bytes at most each).
    const keptLineBytes = 4 * maxChars + 4;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let restChars = 0;
    let lastByte = -1;
    let any = false;
    while (await this.fill()) {
      any = true;
      const newline = this.chunk.indexOf(NEWLINE, this.start);
      const end = newline === -1 ? this.chunk.length : newline;
      const keep = Math.min(end - this.start, keptLineBytes - keptBytes);
      if (keep > 0) kept.push(Buffer.from(this.chunk.subarray(this.start, this.start + keep)));
      keptBytes += keep;
      restChars += countCharacters(this.chunk, this.start + keep, end);
      if (end > this.start) lastByte = this.chunk[end - 1] ?? -1;
      this.start = newline === -1 ? end : newline + 1;
      if (newline !== -1) break;
    }
    if (!any) return null;
    const carriageReturn = lastByte === CARRIAGE_RETURN ? 1 : 0;
    // A character cut at the end of the kept bytes decodes to one U+FFFD; the rest of its bytes
    // are continuation bytes, which countCharacters does not count: it is counted once.
    const characters = Array.from(new TextDecoder().decode(Buffer.concat(kept)));
    const chars = characters.length + restChars - carriageReturn;
    if (carriageReturn && restChars === 0) characters.pop();
    return { text: characters.slice(0, maxChars).join(""), chars };
  }

  async hasMore(): Promise<boolean> {
    return this.fill();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** Makes sure unread bytes are in the chunk; false at the end of the file. */
  private async fill(): Promise<boolean> {
    while (this.start >= this.chunk.length) {
      this.signal.throwIfAborted();
      const { bytesRead } = await this.handle.read(this.buffer, 0, CHUNK_BYTES, this.position);
      if (bytesRead === 0) return false;
      this.chunk = this.buffer.subarray(0, bytesRead);
      this.start = this.position === 0 && this.chunk.subarray(0, 3).equals(BOM) ? 3 : 0;
      this.position += bytesRead;
    }
    return true;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Characters in UTF-8 bytes: every byte but the continuation bytes (10xxxxxx) starts one. */
function countCharacters(bytes: Buffer, start: number, end: number): number {
  let characters = 0;
  for (let i = start; i < end; i++) if (((bytes[i] ?? 0) & 0xc0) !== 0x80) characters += 1;
  return characters;
}
