// Each way a model download can fail, as the one sentence the user reads: what happened, and
// whether to run again (the part is kept and resumed) or to fix something first.

import { basename } from "node:path";
import { ConfigError } from "../core/errors.js";

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

/** What the sentences name: the address, the file, and whether the address is on the hub. */
export interface DownloadTarget {
  url: string;
  destination: string;
  huggingFace?: { token?: string };
}

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

export function unreachable(target: DownloadTarget, cause: string): ModelDownloadError {
  return new ModelDownloadError(
    "offline",
    `Cannot reach ${hostOf(target.url)} to download ${fileName(target)} (${cause}); check the network connection and run again.`,
  );
}

/** What the user needs to download a model by hand: where from, and where it goes. */
export interface ManualHint {
  /** What the user wrote after --model. */
  reference: string;
  url: string;
  destination: string;
}

/** When agentloop cannot download a model, the user can: say exactly where the file goes. */
export function cannotDownload(
  { reference, url, destination }: ManualHint,
  reason: string,
): ModelDownloadError {
  return new ModelDownloadError(
    "offline",
    `Cannot download ${reference} (${reason}). Download it from ${url} and save it as ${destination}, or pass --model with the path of a .gguf file.`,
  );
}

/** 404 or 410: there is no file to download, and asking again will not make one. */
export function notFound(url: string, status: number): ModelDownloadError | null {
  if (status !== 404 && status !== 410) return null;
  return new ModelDownloadError("not_found", `There is no file at ${url} (HTTP ${status}).`);
}

/** A status that is not a file: what it says, and what to do about it. */
export function refusal(target: DownloadTarget, status: number): ModelDownloadError {
  const { url, huggingFace } = target;
  const missing = notFound(url, status);
  if (missing) return missing;
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

export function cutOff(
  target: DownloadTarget,
  received: number,
  total: number | null,
): ModelDownloadError {
  const of = total === null ? "" : ` of ${total}`;
  return new ModelDownloadError(
    "interrupted",
    `The connection to ${hostOf(target.url)} was cut after ${received}${of} bytes of ${fileName(target)}; run again to resume the download.`,
  );
}

export function wrongSize(
  target: DownloadTarget,
  size: number,
  expected: number,
): ModelDownloadError {
  return new ModelDownloadError(
    "verification",
    `The download of ${fileName(target)} has ${size} bytes where ${expected} were expected; the partial file was deleted, so running again downloads it anew.`,
  );
}

export function wrongChecksum(
  target: DownloadTarget,
  sha256: string | undefined,
  expected: string,
): ModelDownloadError {
  return new ModelDownloadError(
    "verification",
    `The download of ${fileName(target)} does not match its checksum (sha256 ${sha256}, expected ${expected}); the partial file was deleted, so running again downloads it anew.`,
  );
}

/** Runs a file-system step, turning a full disk or a refused write into one sentence. */
export async function onDisk<T>(path: string, step: () => Promise<T>): Promise<T> {
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

function hostOf(url: string): string {
  return new URL(url).host;
}

function fileName(target: DownloadTarget): string {
  return basename(target.destination);
}
