// Captures a command's output with bounded memory, however much it prints: the first and the
// last bytes are kept, the middle is counted and dropped, and the complete output goes to a
// file (only once something has to be dropped, so small outputs never touch the disk). Only
// the kept bytes are ever decoded, which keeps a 50 MB output about as cheap as copying it.

import { closeSync, openSync, writeSync } from "node:fs";
import { cleanTerminalText, looksBinary } from "./terminal-text.js";

/** What a command printed, ready to describe to the model. */
export type CapturedOutput =
  | { kind: "text"; text: string }
  | { kind: "cut"; head: string; tail: string; totalBytes: number; lines: number; saved: Saved }
  | { kind: "binary"; totalBytes: number; saved: Saved };

/** Where the complete output went, or why it could not be written. */
export type Saved = { path: string } | { error: string };

export function describeSaved(saved: Saved): string {
  return "path" in saved
    ? `saved in full to ${saved.path}`
    : `the full output could not be saved (${saved.error})`;
}

/** The head and tail of an output cut in the middle, with what was cut and where it all is. */
export function showCut(head: string, tail: string, size: string, saved: Saved): string {
  return `${head}\n[... output cut in the middle: ${size} in all; ${describeSaved(saved)} ...]\n${tail}`;
}

export type OutputSource = "stdout" | "stderr";

export interface OutputCaptureOptions {
  /** Characters of text the model is shown at most: half from the start, half from the end. */
  maxChars: number;
  /**
   * UTF-8 bytes of text the model is shown at most, split the same way; no limit if left out.
   * Without it, `maxChars` of Chinese text or emoji would be up to three times as many bytes.
   */
  maxBytes?: number;
  /** The file for the complete output, should it be needed. */
  fullOutputPath: string;
}

interface Piece {
  bytes: Buffer;
  source: OutputSource;
}

type FileState =
  | { state: "not-needed" }
  | { state: "open"; fd: number }
  | { state: "closed" }
  | { state: "failed"; error: string };

const NEWLINE = 0x0a;

export class OutputCapture {
  private readonly maxChars: number;
  private readonly maxBytes: number;
  private readonly fullOutputPath: string;
  /**
   * Bytes kept at each end. A character takes at most four bytes, and escape sequences and
   * progress updates shrink when cleaned, so this keeps enough for `maxChars` of text.
   */
  private readonly keepBytes: number;
  private head: Piece[] = [];
  private headBytes = 0;
  private tail: Piece[] = [];
  private tailBytes = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = NEWLINE;
  private file: FileState = { state: "not-needed" };

  constructor(options: OutputCaptureOptions) {
    this.maxChars = options.maxChars;
    this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    this.fullOutputPath = options.fullOutputPath;
    this.keepBytes = 4 * options.maxChars;
  }

  write(chunk: Buffer, source: OutputSource): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    this.lastByte = chunk[chunk.length - 1] ?? NEWLINE;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) {
      this.newlines++;
    }
    this.append(chunk);
    let rest = chunk;
    if (this.headBytes < this.keepBytes) {
      const taken = rest.subarray(0, this.keepBytes - this.headBytes);
      this.head.push({ bytes: taken, source });
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push({ bytes: rest, source });
    this.tailBytes += rest.length;
    for (
      let first = this.tail[0];
      first && this.tailBytes - first.bytes.length >= this.keepBytes;
      first = this.tail[0]
    ) {
      // Bytes are about to be dropped from memory: from now on the file keeps everything.
      this.saveKept();
      this.tail.shift();
      this.tailBytes -= first.bytes.length;
    }
  }

  /** Ends the capture and decides what the model will see. */
  finish(): CapturedOutput {
    const tail = lastBytes(this.tail, this.keepBytes);
    const whole = this.headBytes + sizeOf(tail) === this.totalBytes;
    const head = whole ? [...this.head, ...tail] : this.head;
    // The head stops wherever the byte budget did: a character it cut off is left out.
    const headText = decode(head, { complete: whole, startsCut: false });
    const tailText = whole ? "" : decode(tail, { complete: true, startsCut: true });
    if (looksBinary(`${headText}${tailText}`)) {
      return { kind: "binary", totalBytes: this.totalBytes, saved: this.saveAll() };
    }
    const half = Math.floor(this.maxChars / 2);
    const halfBytes = Math.floor(this.maxBytes / 2);
    const cleanHead = trimBlankEdges(cleanTerminalText(headText));
    if (whole && cleanHead.length <= this.maxChars && utf8Length(cleanHead) <= this.maxBytes) {
      this.closeFile();
      return { kind: "text", text: cleanHead };
    }
    const cleanTail = whole ? cleanHead : trimBlankEdges(cleanTerminalText(tailText));
    return {
      kind: "cut",
      head: firstChars(cleanHead, half, halfBytes),
      tail: lastChars(cleanTail, half, halfBytes),
      totalBytes: this.totalBytes,
      lines: this.newlines + (this.lastByte === NEWLINE ? 0 : 1),
      saved: this.saveAll(),
    };
  }

  /** Starts the file with everything kept so far, if it is not started yet. */
  private saveKept(): void {
    if (this.file.state !== "not-needed") return;
    try {
      this.file = { state: "open", fd: openSync(this.fullOutputPath, "w", 0o600) };
    } catch (error) {
      this.file = { state: "failed", error: (error as Error).message };
    }
    for (const piece of [...this.head, ...this.tail]) this.append(piece.bytes);
  }

  /** Makes sure the file holds every byte, and closes it. */
  private saveAll(): Saved {
    this.saveKept();
    this.closeFile();
    return this.file.state === "failed"
      ? { error: this.file.error }
      : { path: this.fullOutputPath };
  }

  private append(chunk: Buffer): void {
    if (this.file.state !== "open") return;
    try {
      // Synchronous writes are the back-pressure: memory cannot pile up behind a slow disk.
      writeSync(this.file.fd, chunk);
    } catch (error) {
      this.closeFile();
      this.file = { state: "failed", error: (error as Error).message };
    }
  }

  private closeFile(): void {
    if (this.file.state !== "open") return;
    closeSync(this.file.fd);
    this.file = { state: "closed" };
  }
}

/**
 * Decodes pieces in the order they arrived. Each stream has its own decoder, so a character
 * split across two writes to stdout decodes whole even when stderr wrote in between. When the
 * pieces start in the middle of the output, a character cut at the start is skipped.
 */
function decode(pieces: Piece[], options: { complete: boolean; startsCut: boolean }): string {
  const decoders = { stdout: new TextDecoder("utf-8"), stderr: new TextDecoder("utf-8") };
  const started = new Set<OutputSource>();
  let text = "";
  for (const { bytes, source } of pieces) {
    const skip = options.startsCut && !started.has(source) ? continuationBytesAt(bytes) : 0;
    started.add(source);
    text += decoders[source].decode(bytes.subarray(skip), { stream: true });
  }
  if (options.complete) text += decoders.stdout.decode() + decoders.stderr.decode();
  return text;
}

/** UTF-8 continuation bytes (at most three) that begin `bytes`: the rest of a cut character. */
function continuationBytesAt(bytes: Buffer): number {
  let count = 0;
  while (count < 3 && ((bytes[count] ?? 0) & 0xc0) === 0x80) count++;
  return count;
}

/** The last `count` bytes of the pieces, however the writes fell. */
function lastBytes(pieces: Piece[], count: number): Piece[] {
  const kept: Piece[] = [];
  let size = 0;
  for (let i = pieces.length - 1; i >= 0 && size < count; i--) {
    const piece = pieces[i] as Piece;
    const bytes = piece.bytes.subarray(Math.max(0, piece.bytes.length - (count - size)));
    kept.unshift({ bytes, source: piece.source });
    size += bytes.length;
  }
  return kept;
}

function sizeOf(pieces: Piece[]): number {
  return pieces.reduce((sum, piece) => sum + piece.bytes.length, 0);
}

/**
 * The longest start of `text` within `count` UTF-16 units and `maxBytes` bytes of UTF-8,
 * ending on a character boundary (a surrogate pair is kept or left out whole).
 */
export function firstChars(
  text: string,
  count: number,
  maxBytes = Number.POSITIVE_INFINITY,
): string {
  if (text.length <= count && utf8Length(text) <= maxBytes) return text;
  let end = 0;
  let bytes = 0;
  while (end < text.length) {
    const [units, size] = characterAt(text, end);
    if (end + units > count || bytes + size > maxBytes) break;
    end += units;
    bytes += size;
  }
  return text.slice(0, end);
}

/**
 * The longest end of `text` within `count` UTF-16 units and `maxBytes` bytes of UTF-8,
 * starting on a character boundary (a surrogate pair is kept or left out whole).
 */
export function lastChars(
  text: string,
  count: number,
  maxBytes = Number.POSITIVE_INFINITY,
): string {
  if (text.length <= count && utf8Length(text) <= maxBytes) return text;
  let start = text.length;
  let bytes = 0;
  while (start > 0) {
    const [units, size] = characterBefore(text, start);
    if (text.length - start + units > count || bytes + size > maxBytes) break;
    start -= units;
    bytes += size;
  }
  return text.slice(start);
}

/** The UTF-16 units and UTF-8 bytes of the character that starts at `index`. */
function characterAt(text: string, index: number): [units: number, bytes: number] {
  const code = text.charCodeAt(index);
  if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) return [2, 4];
  return [1, unitBytes(code)];
}

/** The UTF-16 units and UTF-8 bytes of the character that ends just before `end`. */
function characterBefore(text: string, end: number): [units: number, bytes: number] {
  const code = text.charCodeAt(end - 1);
  if (isLowSurrogate(code) && end >= 2 && isHighSurrogate(text.charCodeAt(end - 2))) return [2, 4];
  return [1, unitBytes(code)];
}

/** UTF-8 bytes of a character of one UTF-16 unit (a lone surrogate becomes U+FFFD: 3 bytes). */
function unitBytes(code: number): number {
  return code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function trimBlankEdges(text: string): string {
  return text.replace(/^\n+/, "").trimEnd();
}
