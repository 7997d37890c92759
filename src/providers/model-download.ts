// Downloads one large file (a model of a few GB) so that nothing half-done is ever taken for
// the real thing: bytes go to `<destination>.part`, which is renamed only once it is complete
// and verified. A part left behind by a cut connection or an interrupt is resumed with a
// Range request the next time.

import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ConfigError } from "../errors.js";
import { connectionCause } from "./network-errors.js";

export type ModelDownloadErrorKind =
  | "not_found"
  | "unauthorized"
  | "offline"
  | "interrupted"
  | "verification"
  | "disk"
  | "server";

/**
 * A ConfigError, so the CLI prints its one sentence (no stack) like any other problem the user
 * or the outside world causes; `kind` tells the ones worth running again ("interrupted",
 * "offline", "server") from the ones to fix first.
 */
export class ModelDownloadError extends ConfigError {
  override name = "ModelDownloadError";
  constructor(
    readonly kind: ModelDownloadErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface DownloadProgress {
  /** Bytes on disk so far, counting those of a resumed part. */
  receivedBytes: number;
  /** The full size, when known. */
  totalBytes: number | null;
}

export interface DownloadOptions {
  url: string;
  destination: string;
  expectedBytes?: number;
  /** Lowercase hex. */
  expectedSha256?: string;
  /**
   * Set when `url` is on the Hugging Face hub: its token (HF_TOKEN), if any, is sent as a
   * Bearer token, and a refusal says how to get one. fetch drops it on a redirect to another
   * host, such as the hub's CDN.
   */
  huggingFace?: { token?: string };
  /** Called at most ~10 times a second, and once more when the last byte is in. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting keeps the part, for the next call to resume. */
  signal?: AbortSignal;
}

const PROGRESS_INTERVAL_MS = 100;
const DISK_CODES = new Set([
  "ENOSPC",
  "EDQUOT",
  "EACCES",
  "EPERM",
  "EROFS",
  "EISDIR",
  "ENOTDIR",
  "EEXIST",
]);

export async function downloadFile(options: DownloadOptions): Promise<void> {
  const { destination, expectedBytes } = options;
  const part = `${destination}.part`;
  await onDisk(destination, () => mkdir(dirname(destination), { recursive: true }));

  let offset = await sizeOf(part);
  if (expectedBytes !== undefined && offset > expectedBytes) {
    await rm(part);
    offset = 0;
  }
  // Hashed before asking, so the connection does not sit idle while a large part is read.
  const hashOfPart = await hashPart(options, offset);
  if (offset > 0 && offset === expectedBytes) {
    // Complete but never renamed: stopped between the last byte and the rename.
    return finish(options, offset, hashOfPart);
  }

  const response = await request(options, offset);
  switch (await answerTo(options, response, offset)) {
    case "append":
      return receiveAndFinish(options, response, offset, hashOfPart);
    case "whole_file":
      return receiveAndFinish(options, response, 0, newHash(options));
    case "part_is_complete":
      return finish(options, offset, hashOfPart);
    case "start_over":
      await rm(part);
      return downloadFile(options);
  }
}

/** What a response means for the part on disk, given the Range asked for (offset > 0). */
async function answerTo(
  options: DownloadOptions,
  response: Response,
  offset: number,
): Promise<"append" | "whole_file" | "part_is_complete" | "start_over"> {
  const range = parseContentRange(response.headers.get("content-range"));
  if (response.status === 206 && offset > 0) {
    if (range?.start === offset) return "append";
    await response.body?.cancel();
    return "start_over";
  }
  if (response.status === 416 && offset > 0) {
    await response.body?.cancel();
    return range?.total === offset ? "part_is_complete" : "start_over";
  }
  if (response.status === 200) return "whole_file";
  await response.body?.cancel();
  throw refusal(options, response.status);
}

async function receiveAndFinish(
  options: DownloadOptions,
  response: Response,
  startAt: number,
  hash: Hash | null,
): Promise<void> {
  const totalBytes = options.expectedBytes ?? totalFromHeaders(response, startAt);
  const received = await receive(options, response, { startAt, totalBytes, hash });
  if (totalBytes !== null && received < totalBytes) {
    throw cutOff(options, received, totalBytes);
  }
  return finish(options, received, hash);
}

async function request(options: DownloadOptions, offset: number): Promise<Response> {
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  if (offset > 0) headers.range = `bytes=${offset}-`;
  const token = options.huggingFace?.token;
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    return await fetch(options.url, { headers, signal: options.signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    const cause = connectionCause(error as Error);
    throw new ModelDownloadError(
      "offline",
      `Cannot reach ${hostOf(options.url)} to download ${fileName(options)} (${cause.code ?? cause.message}); check the network connection and run again.`,
    );
  }
}

interface Receiving {
  /** Bytes of the part to keep: appended to when above 0, else overwritten. */
  startAt: number;
  totalBytes: number | null;
  hash: Hash | null;
}

/** Streams the body into the part, hashing as it goes; returns the size of the part. */
async function receive(
  options: DownloadOptions,
  response: Response,
  { startAt, totalBytes, hash }: Receiving,
): Promise<number> {
  const part = `${options.destination}.part`;
  const file = await onDisk(part, () => open(part, startAt > 0 ? "a" : "w"));
  let received = startAt;
  let lastReport = Number.NEGATIVE_INFINITY;
  try {
    if (response.body === null) throw new Error("The answer has no body.");
    for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
      await onDisk(part, () => file.write(chunk as Buffer));
      hash?.update(chunk);
      received += chunk.byteLength;
      if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
        lastReport = Date.now();
        options.onProgress?.({ receivedBytes: received, totalBytes });
      }
    }
  } catch (error) {
    options.signal?.throwIfAborted();
    if (error instanceof ModelDownloadError) throw error;
    throw cutOff(options, received, totalBytes);
  } finally {
    await file.close();
  }
  options.onProgress?.({ receivedBytes: received, totalBytes });
  return received;
}

/** Checks size and checksum, then gives the part its real name; a bad part is deleted. */
async function finish(options: DownloadOptions, size: number, hash: Hash | null): Promise<void> {
  const { destination, expectedBytes, expectedSha256 } = options;
  const part = `${destination}.part`;
  if (expectedBytes !== undefined && size !== expectedBytes) {
    await rm(part, { force: true });
    throw new ModelDownloadError(
      "verification",
      `The download of ${fileName(options)} has ${size} bytes where ${expectedBytes} were expected; the partial file was deleted, so running again downloads it anew.`,
    );
  }
  const sha256 = hash?.digest("hex");
  if (expectedSha256 !== undefined && sha256 !== expectedSha256.toLowerCase()) {
    await rm(part, { force: true });
    throw new ModelDownloadError(
      "verification",
      `The download of ${fileName(options)} does not match its checksum (sha256 ${sha256}, expected ${expectedSha256}); the partial file was deleted, so running again downloads it anew.`,
    );
  }
  await onDisk(destination, () => rename(part, destination));
}

function refusal(options: DownloadOptions, status: number): ModelDownloadError {
  const { url, huggingFace } = options;
  if (status === 404 || status === 410) {
    return new ModelDownloadError("not_found", `There is no file at ${url} (HTTP ${status}).`);
  }
  if ((status === 401 || status === 403) && huggingFace) {
    return new ModelDownloadError(
      "unauthorized",
      huggingFace.token
        ? `Hugging Face refused to send ${url} (HTTP ${status}) with the token in HF_TOKEN; accept the model's terms on its page, or use a token that can read it.`
        : `Hugging Face refused to send ${url} (HTTP ${status}); the model is gated or private, so accept its terms on its page and set HF_TOKEN to an access token from https://huggingface.co/settings/tokens.`,
    );
  }
  if (status === 401 || status === 403) {
    return new ModelDownloadError(
      "unauthorized",
      `${hostOf(url)} refused to send ${url} (HTTP ${status}); download it yourself and pass --model with the path of the file.`,
    );
  }
  return new ModelDownloadError(
    "server",
    `${hostOf(url)} answered HTTP ${status} to the download of ${url}; try again later.`,
  );
}

function cutOff(
  options: DownloadOptions,
  received: number,
  total: number | null,
): ModelDownloadError {
  const of = total === null ? "" : ` of ${total}`;
  return new ModelDownloadError(
    "interrupted",
    `The connection to ${hostOf(options.url)} was cut after ${received}${of} bytes of ${fileName(options)}; run again to resume the download.`,
  );
}

/** Runs a file-system step, turning a full disk or a refused write into one sentence. */
async function onDisk<T>(path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !DISK_CODES.has(code)) throw error;
    const problem =
      code === "ENOSPC" || code === "EDQUOT"
        ? "the disk is full; free some space and run again to resume"
        : code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "check the permissions of its directory"
          : "something that is not a directory is in the way";
    throw new ModelDownloadError("disk", `Cannot write ${path} (${code}): ${problem}.`);
  }
}

function newHash(options: DownloadOptions): Hash | null {
  return options.expectedSha256 === undefined ? null : createHash("sha256");
}

/** A hash already fed with the part's bytes, to go on with the rest. */
async function hashPart(options: DownloadOptions, size: number): Promise<Hash | null> {
  const hash = newHash(options);
  if (hash === null || size === 0) return hash;
  for await (const chunk of createReadStream(`${options.destination}.part`, { end: size - 1 })) {
    hash.update(chunk as Buffer);
  }
  return hash;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

// `bytes 100-199/1000`, or `bytes */1000` in an answer to a Range beyond the end.
function parseContentRange(header: string | null): { start?: number; total?: number } | null {
  const match = /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(header?.trim() ?? "");
  if (!match) return null;
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    total: match[2] === "*" || match[2] === undefined ? undefined : Number(match[2]),
  };
}

function totalFromHeaders(response: Response, startAt: number): number | null {
  const total = parseContentRange(response.headers.get("content-range"))?.total;
  if (total !== undefined) return total;
  const length = response.headers.get("content-length");
  return length === null ? null : startAt + Number(length);
}

function hostOf(url: string): string {
  return new URL(url).host;
}

function fileName(options: DownloadOptions): string {
  return basename(options.destination);
}

const UNITS = ["B", "kB", "MB", "GB", "TB"];

/**
 * One line for a terminal to redraw with `\r`:
 * `Qwen3-4B-Q4_K_M.gguf  [#########-----------]  1.1 / 2.5 GB  42 MB/s  0:33 left`.
 * `resumedFrom` keeps the bytes of an earlier run out of the speed.
 */
export function formatProgress(
  receivedBytes: number,
  totalBytes: number | null,
  elapsedMs: number,
  options: { name?: string; resumedFrom?: number } = {},
): string {
  const fields: string[] = [];
  if (options.name) fields.push(options.name);
  const perSecond =
    elapsedMs > 0 ? ((receivedBytes - (options.resumedFrom ?? 0)) * 1000) / elapsedMs : 0;
  if (totalBytes !== null && totalBytes > 0) {
    const done = Math.min(1, receivedBytes / totalBytes);
    const filled = Math.round(done * 20);
    fields.push(`[${"#".repeat(filled)}${"-".repeat(20 - filled)}]`);
    const unit = unitFor(totalBytes);
    fields.push(`${inUnit(receivedBytes, unit)} / ${inUnit(totalBytes, unit)} ${UNITS[unit]}`);
  } else {
    const unit = unitFor(receivedBytes);
    fields.push(`${inUnit(receivedBytes, unit)} ${UNITS[unit]}`);
  }
  if (perSecond > 0) {
    const unit = unitFor(perSecond);
    fields.push(`${inUnit(perSecond, unit)} ${UNITS[unit]}/s`);
    if (totalBytes !== null) {
      fields.push(`${clock(Math.max(0, totalBytes - receivedBytes) / perSecond)} left`);
    }
  }
  return fields.join("  ");
}

function unitFor(bytes: number): number {
  let unit = 0;
  while (unit < UNITS.length - 1 && bytes >= 1000 ** (unit + 1)) unit++;
  return unit;
}

function inUnit(bytes: number, unit: number): string {
  const value = bytes / 1000 ** unit;
  return unit === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
}

function clock(seconds: number): string {
  const whole = Math.ceil(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
