// Captures a command's output with bounded memory, however much it prints: the beginning and
// the end are kept as text, the middle is counted and dropped, and the complete raw bytes go to
// a file (only once there is more than fits in memory, so small outputs never touch the disk).

import { closeSync, openSync, writeSync } from "node:fs";
import { cleanTerminalText, looksBinary } from "./terminal-text.js";

/** What a command printed, ready to describe to the model. */
export type CapturedOutput =
  | { kind: "text"; text: string }
  | { kind: "cut"; head: string; tail: string; totalBytes: number; lines: number; saved: Saved }
  | { kind: "binary"; totalBytes: number; saved: Saved };

/** Where the complete output went, or why it could not be written. */
export type Saved = { path: string } | { error: string };

export type OutputSource = "stdout" | "stderr";

export interface OutputCaptureOptions {
  /** Characters of text the model is shown at most: half from the start, half from the end. */
  maxChars: number;
  /** The file for the complete output, should it be needed. */
  fullOutputPath: string;
}

const NEWLINE = 0x0a;

export class OutputCapture {
  private readonly maxChars: number;
  private readonly fullOutputPath: string;
  // Each stream has its own decoder, so a character split across two writes to stdout decodes
  // whole even when stderr wrote in between.
  private readonly decoders = {
    stdout: new TextDecoder("utf-8"),
    stderr: new TextDecoder("utf-8"),
  };
  private head = "";
  private headFull = false;
  private tail = "";
  private droppedChars = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = NEWLINE;
  /** Raw bytes kept until they outgrow memory; then they go to the file. */
  private pending: Buffer[] | null = [];
  private file: FileState = { state: "not-needed" };

  constructor(options: OutputCaptureOptions) {
    this.maxChars = options.maxChars;
    this.fullOutputPath = options.fullOutputPath;
  }

  write(chunk: Buffer, source: OutputSource): void {
    if (chunk.length === 0) return;
    this.totalBytes += chunk.length;
    this.lastByte = chunk[chunk.length - 1] ?? NEWLINE;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) {
      this.newlines++;
    }
    this.keepRaw(chunk);
    this.keepText(this.decoders[source].decode(chunk, { stream: true }));
  }

  /** Ends the capture: flushes the decoders and decides what the model will see. */
  finish(): CapturedOutput {
    this.keepText(this.decoders.stdout.decode() + this.decoders.stderr.decode());
    const shown = this.droppedChars === 0 ? this.head + this.tail : `${this.head}\n${this.tail}`;
    if (looksBinary(shown)) {
      return { kind: "binary", totalBytes: this.totalBytes, saved: this.saveAll() };
    }
    const half = Math.floor(this.maxChars / 2);
    let head: string;
    let tail: string;
    if (this.droppedChars === 0) {
      const text = trimBlankEdges(cleanTerminalText(shown));
      if (text.length <= this.maxChars) {
        this.closeFile();
        return { kind: "text", text };
      }
      head = text;
      tail = text;
    } else {
      head = trimBlankEdges(cleanTerminalText(this.head));
      tail = trimBlankEdges(cleanTerminalText(this.tail));
    }
    return {
      kind: "cut",
      head: firstChars(head, half),
      tail: lastChars(tail, half),
      totalBytes: this.totalBytes,
      lines: this.newlines + (this.lastByte === NEWLINE ? 0 : 1),
      saved: this.saveAll(),
    };
  }

  private keepText(text: string): void {
    if (text.length === 0) return;
    if (!this.headFull) {
      const taken = firstChars(text, this.maxChars - this.head.length);
      this.head += taken;
      text = text.slice(taken.length);
      // Full even when a pair did not fit in the last unit: text must not overtake the tail.
      this.headFull = text.length > 0;
    }
    if (text.length === 0) return;
    this.tail += text;
    // Trimming only when the tail is twice its size keeps the copying linear in the output.
    if (this.tail.length > 2 * this.maxChars) {
      const kept = lastChars(this.tail, this.maxChars);
      this.droppedChars += this.tail.length - kept.length;
      this.tail = kept;
    }
  }

  private keepRaw(chunk: Buffer): void {
    if (this.pending) {
      this.pending.push(chunk);
      if (this.totalBytes <= 8 * this.maxChars) return;
      this.openFile();
      return;
    }
    this.append(chunk);
  }

  /** Makes sure the file holds every byte, and closes it. */
  private saveAll(): Saved {
    if (this.pending) this.openFile();
    this.closeFile();
    return this.file.state === "failed"
      ? { error: this.file.error }
      : { path: this.fullOutputPath };
  }

  private openFile(): void {
    const pending = this.pending ?? [];
    this.pending = null;
    try {
      this.file = { state: "open", fd: openSync(this.fullOutputPath, "w", 0o600) };
    } catch (error) {
      this.file = { state: "failed", error: (error as Error).message };
    }
    for (const chunk of pending) this.append(chunk);
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

type FileState =
  | { state: "not-needed" }
  | { state: "open"; fd: number }
  | { state: "closed" }
  | { state: "failed"; error: string };

/** The first `count` UTF-16 units of `text`, one fewer if that would split a surrogate pair. */
export function firstChars(text: string, count: number): string {
  if (text.length <= count) return text;
  const end = isHighSurrogate(text.charCodeAt(count - 1)) ? count - 1 : count;
  return text.slice(0, Math.max(end, 0));
}

/** The last `count` UTF-16 units of `text`, one fewer if that would split a surrogate pair. */
export function lastChars(text: string, count: number): string {
  if (text.length <= count) return text;
  const start = text.length - count;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
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
