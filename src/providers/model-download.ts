// Downloads one large file (a model of a few GB) so that nothing half-done is ever taken for
// the real thing: bytes go to `<destination>.part`, which is renamed only once it is complete
// and verified. A part left behind by a cut connection or an interrupt is resumed with a
// Range request the next time.

import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import {
  cutOff,
  ModelDownloadError,
  onDisk,
  refusal,
  unreachable,
  wrongChecksum,
  wrongSize,
} from "./download-errors.js";
import { connectionCause } from "./network-errors.js";

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
  const { url, huggingFace, signal } = options;
  return fetchOrThrow(url, { headers, token: huggingFace?.token, signal }, (cause) =>
    unreachable(options, cause),
  );
}

/**
 * fetch, sending `token` (if any) as a Bearer token. A connection that cannot be made becomes
 * the error `explain` makes of what it said (ECONNREFUSED, ENOTFOUND, …); an abort stays one.
 */
export async function fetchOrThrow(
  url: string,
  init: { method?: string; headers?: Record<string, string>; token?: string; signal?: AbortSignal },
  explain: (cause: string) => Error,
): Promise<Response> {
  const { method, token, signal } = init;
  const headers = { ...init.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    return await fetch(url, { method, headers, signal });
  } catch (error) {
    signal?.throwIfAborted();
    const cause = connectionCause(error as Error);
    throw explain(cause.code ?? cause.message);
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
    throw wrongSize(options, size, expectedBytes);
  }
  const sha256 = hash?.digest("hex");
  if (expectedSha256 !== undefined && sha256 !== expectedSha256.toLowerCase()) {
    await rm(part, { force: true });
    throw wrongChecksum(options, sha256, expectedSha256);
  }
  await onDisk(destination, () => rename(part, destination));
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

/**
 * The bytes of `<destination>.part` that downloadFile will resume from: none when there is no
 * part, or when it is longer than the file and so cannot be its start.
 */
export async function resumableBytes(
  destination: string,
  expectedBytes: number | null,
): Promise<number> {
  const size = await sizeOf(`${destination}.part`);
  return expectedBytes !== null && size > expectedBytes ? 0 : size;
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
