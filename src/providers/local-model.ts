// Turns what the user wrote after --model into a GGUF file on disk for the local provider:
// a path is used as is; `hf:owner/repo/file.gguf[#revision]` and http(s) URLs live in a cache
// under $XDG_CACHE_HOME/agentloop/models and are downloaded only when they are not there yet,
// so a model that was downloaded once never touches the network again.

import { open, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { ConfigError } from "../errors.js";
import { type DownloadProgress, downloadFile, ModelDownloadError } from "./model-download.js";
import { connectionCause } from "./network-errors.js";
import { DEFAULT_LOCAL_MODEL } from "./presets.js";

export { formatProgress } from "./model-download.js";

const DEFAULT_ENDPOINT = "https://huggingface.co";
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
  | { kind: "hub"; owner: string; repo: string; file: string; revision: string }
  | { kind: "url"; url: URL };

export async function resolveLocalModel(
  reference: string | undefined,
  options: ResolveOptions,
): Promise<LocalModel> {
  const text = reference ?? DEFAULT_LOCAL_MODEL;
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
  const path = expandPath(reference, options);
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
  throw new ConfigError(
    `"${reference}" is not a model the local provider can run: pass the path of a .gguf file, hf:owner/repo/path/to/file.gguf (optionally ending in #revision), or an https:// address of a .gguf file.`,
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
  if (url.origin !== new URL(hubEndpoint(env)).origin) return null;
  const [owner, repo, action, revision, ...rest] = url.pathname.slice(1).split("/");
  if (!owner || !repo || !revision || rest.length === 0) return null;
  if (action !== "resolve" && action !== "blob") return null;
  const file = rest.map(decodeSegment).join("/");
  return parseHubReference(`hf:${owner}/${repo}/${file}#${decodeSegment(revision)}`);
}

async function fromHub(
  reference: string,
  source: Extract<ModelSource, { kind: "hub" }>,
  options: ResolveOptions,
): Promise<LocalModel> {
  const { owner, repo, file, revision } = source;
  const repoDir = revision === DEFAULT_REVISION ? repo : `${repo}@${encodeURIComponent(revision)}`;
  const destination = join(
    cacheRoot(options.env),
    "huggingface",
    owner,
    repoDir,
    ...file.split("/"),
  );
  if (await exists(destination)) return cached(destination);

  const endpoint = hubEndpoint(options.env);
  const rev = encodeURIComponent(revision);
  const url = `${endpoint}/${owner}/${repo}/resolve/${rev}/${encodePath(file)}`;
  const manualHint = { reference, url, destination };
  const token = options.env.HF_TOKEN || undefined;

  const entry = await lookUpOnHub(source, endpoint, token, manualHint, options.signal);
  options.onDownloadStart?.({
    name: basename(file),
    url,
    bytes: entry.size,
    destination,
    resumingFrom: await partSize(destination, entry.size),
  });
  await download(manualHint, options, {
    url,
    destination,
    expectedBytes: entry.size,
    expectedSha256: entry.sha256,
    huggingFace: { token },
  });
  return downloaded(destination, url);
}

interface HubEntry {
  size: number;
  sha256?: string;
}

/** Asks the hub's tree API for the file's size and sha256 (its LFS object id). */
async function lookUpOnHub(
  { owner, repo, file, revision }: Extract<ModelSource, { kind: "hub" }>,
  endpoint: string,
  token: string | undefined,
  manualHint: ManualHint,
  signal: AbortSignal | undefined,
): Promise<HubEntry> {
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
  let next: string | null =
    `${endpoint}/api/models/${owner}/${repo}/tree/${encodeURIComponent(revision)}` +
    (dir ? `/${encodePath(dir)}` : "");
  const ggufFiles: string[] = [];
  while (next !== null) {
    const response = await fetchOrExplain(next, manualHint, signal, token);
    if (response.status === 401 || response.status === 403) {
      throw new ModelDownloadError(
        "unauthorized",
        token
          ? `Hugging Face refused to list ${owner}/${repo} (HTTP ${response.status}) with the token in HF_TOKEN; check the repository's name, and that the token can read it.`
          : `Hugging Face refused to list ${owner}/${repo} (HTTP ${response.status}): it does not exist, or it is private or gated; check its name, or set HF_TOKEN to an access token from https://huggingface.co/settings/tokens.`,
      );
    }
    if (response.status === 404) {
      throw new ModelDownloadError(
        "not_found",
        `Hugging Face has no ${owner}/${repo}${dir ? `/${dir}` : ""} at revision ${revision} (HTTP 404); check the repository, the revision and the path in ${manualHint.reference}.`,
      );
    }
    if (!response.ok) {
      throw cannotDownload(manualHint, `Hugging Face answered HTTP ${response.status}`);
    }
    const entries = (await response.json().catch(() => null)) as unknown;
    if (!Array.isArray(entries)) {
      throw cannotDownload(manualHint, "Hugging Face did not answer with a list of files");
    }
    for (const entry of entries as TreeEntry[]) {
      if (entry.path === file && typeof entry.size === "number") {
        return { size: entry.lfs?.size ?? entry.size, sha256: entry.lfs?.oid };
      }
      if (entry.type === "file" && entry.path?.toLowerCase().endsWith(".gguf")) {
        ggufFiles.push(basename(entry.path));
      }
    }
    next = nextPage(response.headers.get("link"));
  }
  const choices =
    ggufFiles.length > 0
      ? `its .gguf files there are ${ggufFiles.join(", ")}`
      : "it has no .gguf files there";
  throw new ModelDownloadError(
    "not_found",
    `${owner}/${repo} has no file ${file} at revision ${revision}; ${choices}.`,
  );
}

interface TreeEntry {
  type?: string;
  path?: string;
  size?: number;
  lfs?: { oid?: string; size?: number };
}

function nextPage(link: string | null): string | null {
  return /<([^>]+)>;\s*rel="next"/.exec(link ?? "")?.[1] ?? null;
}

async function fromUrl(reference: string, url: URL, options: ResolveOptions): Promise<LocalModel> {
  const segments = url.pathname.split("/").filter(Boolean).map(decodeSegment);
  if (!isSafePath(segments.join("/")) || !url.pathname.toLowerCase().endsWith(".gguf")) {
    throw new ConfigError(
      `${reference} is not the address of a .gguf file; pass one whose path ends in .gguf.`,
    );
  }
  const host = url.port ? `${url.hostname}_${url.port}` : url.hostname;
  const destination = join(cacheRoot(options.env), "urls", host, ...segments);
  if (await exists(destination)) return cached(destination);

  const manualHint = { reference, url: url.href, destination };
  const onHub = url.origin === new URL(hubEndpoint(options.env)).origin;
  const token = onHub ? options.env.HF_TOKEN || undefined : undefined;
  const head = await fetchOrExplain(url.href, manualHint, options.signal, token, "HEAD");
  if (head.status === 404 || head.status === 410) {
    throw new ModelDownloadError(
      "not_found",
      `There is no file at ${url.href} (HTTP ${head.status}).`,
    );
  }
  const length = head.ok ? head.headers.get("content-length") : null;
  const bytes = length === null ? null : Number(length);
  options.onDownloadStart?.({
    name: basename(destination),
    url: url.href,
    bytes,
    destination,
    resumingFrom: await partSize(destination, bytes),
  });
  await download(manualHint, options, {
    url: url.href,
    destination,
    huggingFace: onHub ? { token } : undefined,
  });
  return downloaded(destination, url.href);
}

interface ManualHint {
  reference: string;
  url: string;
  destination: string;
}

/** When agentloop cannot download a model, the user can: say exactly where the file goes. */
function cannotDownload({ reference, url, destination }: ManualHint, reason: string) {
  return new ModelDownloadError(
    "offline",
    `Cannot download ${reference} (${reason}). Download it from ${url} and save it as ${destination}, or pass --model with the path of a .gguf file.`,
  );
}

async function fetchOrExplain(
  url: string,
  manualHint: ManualHint,
  signal: AbortSignal | undefined,
  token: string | undefined,
  method = "GET",
): Promise<Response> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  try {
    return await fetch(url, { method, headers, signal });
  } catch (error) {
    signal?.throwIfAborted();
    const cause = connectionCause(error as Error);
    throw cannotDownload(
      manualHint,
      `cannot reach ${new URL(url).host}: ${cause.code ?? cause.message}`,
    );
  }
}

async function download(
  manualHint: ManualHint,
  options: ResolveOptions,
  what: Parameters<typeof downloadFile>[0],
): Promise<void> {
  try {
    await downloadFile({ ...what, onProgress: options.onProgress, signal: options.signal });
  } catch (error) {
    if (error instanceof ModelDownloadError && error.kind === "offline") {
      throw cannotDownload(manualHint, `cannot reach ${new URL(what.url).host}`);
    }
    throw error;
  }
}

async function cached(path: string): Promise<LocalModel> {
  await assertGguf(path, "; delete it and run again to download it anew");
  return { path, name: basename(path) };
}

async function downloaded(path: string, url: string): Promise<LocalModel> {
  try {
    await assertGguf(path);
  } catch (error) {
    await rm(path, { force: true });
    throw new ConfigError(
      `The file downloaded from ${url} is not a GGUF model, so it was deleted; if that address is a web page about the model, use the link that downloads the file itself.`,
      { cause: error },
    );
  }
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

/** The variable huggingface_hub reads too, so a mirror set up for it works here. */
function hubEndpoint(env: NodeJS.ProcessEnv): string {
  const endpoint = (env.HF_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  if (!URL.canParse(endpoint)) {
    throw new ConfigError(`HF_ENDPOINT is not a valid address: ${env.HF_ENDPOINT}.`);
  }
  return endpoint;
}

function expandPath(reference: string, options: ResolveOptions): string {
  if (reference === "~") return home(options.env);
  if (reference.startsWith("~/")) return join(home(options.env), reference.slice(2));
  return resolve(options.cwd ?? process.cwd(), reference);
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

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** What an earlier run left in the part, as downloadFile will count it. */
async function partSize(destination: string, expected: number | null): Promise<number> {
  const size = await stat(`${destination}.part`).then(
    (info) => info.size,
    () => 0,
  );
  return expected !== null && size > expected ? 0 : size;
}
