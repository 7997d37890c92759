// What agentloop knows of the Hugging Face hub, to download a model file from it: where the hub
// is (HF_ENDPOINT), the token for gated and private models (HF_TOKEN, sent to the hub alone), the
// address a file downloads from, and the tree API that gives its size and sha256 beforehand, so
// the download can be checked and resumed.

import { basename } from "node:path";
import { ConfigError } from "../core/errors.js";
import { cannotDownload, type ManualHint, ModelDownloadError } from "./download-errors.js";
import { fetchOrThrow } from "./model-download.js";

const DEFAULT_ENDPOINT = "https://huggingface.co";

/** One file of a model repository, at a branch, tag or commit. */
export interface HubFile {
  owner: string;
  repo: string;
  /** Its path in the repository. */
  file: string;
  revision: string;
}

export interface HubEntry {
  size: number;
  /** Lowercase hex, when the file is stored with LFS (as .gguf files are). */
  sha256?: string;
}

export interface HubLookUp {
  endpoint: string;
  token: string | undefined;
  /** For the sentence that says how to download the file by hand when the hub does not answer. */
  manualHint: ManualHint;
  signal: AbortSignal | undefined;
}

/** The variable huggingface_hub reads too, so a mirror set up for it works here. */
export function hubEndpoint(env: NodeJS.ProcessEnv): string {
  const endpoint = (env.HF_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  if (!URL.canParse(endpoint)) {
    throw new ConfigError(`HF_ENDPOINT is not a valid address: ${env.HF_ENDPOINT}.`);
  }
  return endpoint;
}

export function hubToken(env: NodeJS.ProcessEnv): string | undefined {
  return env.HF_TOKEN || undefined;
}

/**
 * The cache folders for a hub's files: huggingface.co's under `huggingface/`, any other hub's
 * (a mirror HF_ENDPOINT names) under `hubs/HOST/`, so a file that came from elsewhere never
 * takes the name later runs load the default model by, whatever checksum its hub gave.
 */
export function hubCacheFolders(endpoint: string): string[] {
  return endpoint === DEFAULT_ENDPOINT ? ["huggingface"] : ["hubs", hostFolder(new URL(endpoint))];
}

/** A host as one folder name: `127.0.0.1_8080` when it has a port. */
export function hostFolder(url: URL): string {
  return url.port ? `${url.hostname}_${url.port}` : url.hostname;
}

/** Whether `url` is on the hub, the only host HF_TOKEN may go to. */
export function isOnHub(url: URL, env: NodeJS.ProcessEnv): boolean {
  return url.origin === new URL(hubEndpoint(env)).origin;
}

/** The address the file itself downloads from (the hub redirects it to its CDN). */
export function resolveUrl(endpoint: string, { owner, repo, file, revision }: HubFile): string {
  return `${endpoint}/${owner}/${repo}/resolve/${encodeURIComponent(revision)}/${encodePath(file)}`;
}

/** Asks the hub's tree API for the file's size and sha256 (its LFS object id). */
export async function lookUpOnHub(
  { owner, repo, file, revision }: HubFile,
  { endpoint, token, manualHint, signal }: HubLookUp,
): Promise<HubEntry> {
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
  let next: string | null =
    `${endpoint}/api/models/${owner}/${repo}/tree/${encodeURIComponent(revision)}` +
    (dir ? `/${encodePath(dir)}` : "");
  const ggufFiles: string[] = [];
  while (next !== null) {
    const page: string = next;
    const response = await fetchOrThrow(page, { token, signal }, (cause) =>
      cannotDownload(manualHint, `cannot reach ${new URL(page).host}: ${cause}`),
    );
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

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}
