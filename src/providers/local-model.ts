// Turns what the user wrote after --model into a GGUF file on disk for the local provider:
// a path is used as is; `hf:owner/repo/file.gguf[#revision]` and http(s) URLs live in a cache
// under $XDG_CACHE_HOME/agentloop/models and are downloaded only when they are not there yet,
// so a model that was downloaded once never touches the network again.

import { open, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, isAbsolute, join, sep } from "node:path";
import { ConfigError } from "../core/errors.js";
import { resolveToolPath } from "../core/tool-path.js";
import { cannotDownload, ModelDownloadError, notFound } from "./download-errors.js";
import {
  type HubFile,
  hostFolder,
  hubCacheFolders,
  hubEndpoint,
  hubToken,
  isOnHub,
  lookUpOnHub,
  resolveUrl,
} from "./hugging-face.js";
import { DEFAULT_LOCAL_MODEL, LOCAL_MODEL_NAMES, localModelNamed } from "./local-model-names.js";
import {
  type DownloadOptions,
  type DownloadProgress,
  downloadFile,
  fetchOrThrow,
  resumableBytes,
} from "./model-download.js";

const DEFAULT_REVISION = "main";

export interface LocalModel {
  path: string;
  /** The file's name, for the terminal and the session. */
  name: string;
}

export interface DownloadStart {
  name: string;
  url: string;
  /** The size, when the server said it before the download. */
  bytes: number | null;
  destination: string;
  /** Bytes already on disk from an earlier, unfinished download. */
  resumingFrom: number;
}

export interface ResolveOptions {
  env: NodeJS.ProcessEnv;
  /** Where relative paths start; the process's directory by default. */
  cwd?: string;
  onDownloadStart?: (info: DownloadStart) => void;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
}

type ModelSource =
  | { kind: "file"; path: string }
  | ({ kind: "hub" } & HubFile)
  | { kind: "url"; url: URL };

export async function resolveLocalModel(
  reference: string | undefined,
  options: ResolveOptions,
): Promise<LocalModel> {
  const text = localModelNamed(reference ?? "") ?? reference ?? DEFAULT_LOCAL_MODEL;
  const source = await parseReference(text, options);
  switch (source.kind) {
    case "file":
      await assertGguf(source.path);
      return { path: source.path, name: basename(source.path) };
    case "hub":
      return fromHub(text, source, options);
    case "url":
      return fromUrl(text, source.url, options);
  }
}

async function parseReference(reference: string, options: ResolveOptions): Promise<ModelSource> {
  if (reference.startsWith("hf:")) return parseHubReference(reference);
  if (/^https?:\/\//i.test(reference)) {
    const url = URL.canParse(reference) ? new URL(reference) : null;
    if (url === null) throw new ConfigError(`${reference} is not a valid address.`);
    return hubSourceOf(url, options.env) ?? { kind: "url", url };
  }
  const path = resolveToolPath(options.cwd ?? process.cwd(), reference, home(options.env));
  if (await exists(path)) return { kind: "file", path };
  const looksLikePath =
    isAbsolute(reference) ||
    reference.includes("/") ||
    reference.includes(sep) ||
    reference.startsWith("~") ||
    reference.toLowerCase().endsWith(".gguf");
  if (looksLikePath) {
    const where = path === reference ? "" : ` (looked for ${path})`;
    throw new ConfigError(`The model file ${reference} does not exist${where}.`);
  }
  const names = Object.keys(LOCAL_MODEL_NAMES).join(", ");
  throw new ConfigError(
    `"${reference}" is not a model the local provider can run: pass the name of one it knows (${names}), the path of a .gguf file, hf:owner/repo/path/to/file.gguf (optionally ending in #revision), or an https:// address of a .gguf file.`,
  );
}

/** `hf:owner/repo/path/to/file.gguf`, optionally ending in `#revision` (a branch, tag or commit). */
function parseHubReference(reference: string): ModelSource {
  const match = /^hf:([\w.-]+)\/([\w.-]+)\/([^#]+?)(?:#(.+))?$/.exec(reference);
  const file = match?.[3] ?? "";
  if (!match?.[1] || !match[2] || !isSafePath(file) || !file.toLowerCase().endsWith(".gguf")) {
    throw new ConfigError(
      `"${reference}" is not a Hugging Face model reference agentloop understands: write hf:owner/repo/path/to/file.gguf, optionally followed by #revision.`,
    );
  }
  return {
    kind: "hub",
    owner: match[1],
    repo: match[2],
    file,
    revision: match[4] ?? DEFAULT_REVISION,
  };
}

/** A hub address of a file (`/owner/repo/resolve/rev/file`, or `/blob/` from the web page). */
function hubSourceOf(url: URL, env: NodeJS.ProcessEnv): ModelSource | null {
  if (!isOnHub(url, env)) return null;
  const [owner, repo, action, revision, ...rest] = url.pathname.slice(1).split("/");
  if (!owner || !repo || !revision || rest.length === 0) return null;
  if (action !== "resolve" && action !== "blob") return null;
  const file = rest.map(decodeSegment).join("/");
  return parseHubReference(`hf:${owner}/${repo}/${file}#${decodeSegment(revision)}`);
}

async function fromHub(
  reference: string,
  source: HubFile,
  options: ResolveOptions,
): Promise<LocalModel> {
  const { owner, repo, file, revision } = source;
  const repoDir = revision === DEFAULT_REVISION ? repo : `${repo}@${encodeURIComponent(revision)}`;
  const endpoint = hubEndpoint(options.env);
  const destination = join(
    cacheRoot(options.env),
    ...hubCacheFolders(endpoint),
    owner,
    repoDir,
    ...file.split("/"),
  );
  if (await exists(destination)) return cached(destination);

  const url = resolveUrl(endpoint, source);
  const manualHint = { reference, url, destination };
  const token = hubToken(options.env);

  const entry = await lookUpOnHub(source, { endpoint, token, manualHint, signal: options.signal });
  const what: DownloadOptions = {
    url,
    destination,
    expectedBytes: entry.size,
    expectedSha256: entry.sha256,
    huggingFace: { token },
  };
  return download(reference, what, entry.size, options);
}

async function fromUrl(reference: string, url: URL, options: ResolveOptions): Promise<LocalModel> {
  const segments = url.pathname.split("/").filter(Boolean).map(decodeSegment);
  if (!isSafePath(segments.join("/")) || !url.pathname.toLowerCase().endsWith(".gguf")) {
    throw new ConfigError(
      `${reference} is not the address of a .gguf file; pass one whose path ends in .gguf.`,
    );
  }
  const destination = join(cacheRoot(options.env), "urls", hostFolder(url), ...segments);
  if (await exists(destination)) return cached(destination);

  const manualHint = { reference, url: url.href, destination };
  const onHub = isOnHub(url, options.env);
  const token = onHub ? hubToken(options.env) : undefined;
  const head = await fetchOrThrow(
    url.href,
    { method: "HEAD", token, signal: options.signal },
    (cause) => cannotDownload(manualHint, `cannot reach ${url.host}: ${cause}`),
  );
  const missing = notFound(url.href, head.status);
  if (missing) throw missing;
  const length = head.ok ? head.headers.get("content-length") : null;
  const bytes = length === null ? null : Number(length);
  const huggingFace = onHub ? { token } : undefined;
  return download(reference, { url: url.href, destination, huggingFace }, bytes, options);
}

/**
 * Says that the download starts and how big it is (`bytes`, when known), downloads, and makes
 * sure that what came is a GGUF model.
 */
async function download(
  reference: string,
  what: DownloadOptions,
  bytes: number | null,
  options: ResolveOptions,
): Promise<LocalModel> {
  const { url, destination } = what;
  options.onDownloadStart?.({
    name: basename(destination),
    url,
    bytes,
    destination,
    resumingFrom: await resumableBytes(destination, bytes),
  });
  try {
    await downloadFile({ ...what, onProgress: options.onProgress, signal: options.signal });
  } catch (error) {
    if (error instanceof ModelDownloadError && error.kind === "offline") {
      throw cannotDownload({ reference, url, destination }, `cannot reach ${new URL(url).host}`);
    }
    throw error;
  }
  try {
    await assertGguf(destination);
  } catch (error) {
    await rm(destination, { force: true });
    throw new ConfigError(
      `The file downloaded from ${url} is not a GGUF model, so it was deleted; if that address is a web page about the model, use the link that downloads the file itself.`,
      { cause: error },
    );
  }
  return { path: destination, name: basename(destination) };
}

async function cached(path: string): Promise<LocalModel> {
  await assertGguf(path, "; delete it and run again to download it anew");
  return { path, name: basename(path) };
}

/** GGUF files start with the four bytes "GGUF"; anything else would fail deep in llama.cpp. */
async function assertGguf(path: string, advice = ""): Promise<void> {
  const info = await stat(path);
  if (info.isDirectory()) {
    throw new ConfigError(`${path} is a directory; pass the path of a .gguf file.`);
  }
  const file = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`Cannot read the model file ${path} (${error.code ?? error.message}).`);
  });
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(4), 0, 4, 0);
    if (bytesRead < 4 || buffer.toString("latin1") !== "GGUF") {
      throw new ConfigError(
        `${path} is not a GGUF model file (it does not start with "GGUF")${advice}.`,
      );
    }
  } finally {
    await file.close();
  }
}

/** `$XDG_CACHE_HOME/agentloop/models`, by default `~/.cache/agentloop/models`. */
function cacheRoot(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(home(env), ".cache");
  return join(base, "agentloop", "models");
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** Relative, and with no part that could climb out of the cache. */
function isSafePath(path: string): boolean {
  const parts = path.split("/");
  return parts.every(
    (part) => part !== "" && part !== "." && part !== ".." && !part.includes("\\"),
  );
}

/** A part of a URL's path; `%2F` stays out, so a decoded part never holds a slash. */
function decodeSegment(segment: string): string {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded.includes("/") ? segment : decoded;
  } catch {
    return segment;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
