// A local stand-in for the Hugging Face hub, as far as downloading one model file goes: the
// tree API (`/api/models/{owner}/{repo}/tree/{revision}/{dir}`, with each file's size and the
// sha256 as its LFS oid), the file itself at `/{owner}/{repo}/resolve/{revision}/{path}`, and
// plain files at any other path (for https:// references). Downloads honour Range. Faults are
// set on `faults` and, except `notFound` and `requireToken`, apply to the next download only:
// cut the connection after N bytes, stall after N bytes, flip a byte, ignore Range.
// Every request is recorded, so tests can count hits and read headers.

import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface HostedFile {
  /** `owner/repo/path/in/repo.gguf` on the hub, or `/any/path.gguf` served as is. */
  at: string;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface Faults {
  /** Every request is answered 404. */
  notFound?: boolean;
  /** Requests without `Authorization: Bearer <this>` are answered 401, as for a gated model. */
  requireToken?: string;
  /** The next download sends this many bytes of its body, then destroys the socket. */
  cutAfter?: number;
  /** The next download sends this many bytes of its body, then nothing until the client leaves. */
  stallAfter?: number;
  /** The next download has one byte changed in its middle. */
  corrupt?: boolean;
  /** The next download ignores Range and sends the whole file with a 200. */
  ignoreRange?: boolean;
  /** Every download is sent in 64 kB chunks this many ms apart. */
  chunkDelayMs?: number;
}

export interface FakeModelHost {
  url: string;
  requests: RecordedRequest[];
  faults: Faults;
  /** Only the downloads (resolve and plain files), not the tree API or HEAD. */
  downloads(): RecordedRequest[];
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;

export async function startFakeModelHost(files: HostedFile[]): Promise<FakeModelHost> {
  const requests: RecordedRequest[] = [];
  const faults: Faults = {};
  const hub = files.filter((file) => !file.at.startsWith("/"));
  const plain = new Map(files.filter((file) => file.at.startsWith("/")).map((f) => [f.at, f]));

  const server = createServer((req, res) => {
    const path = decodeURI((req.url ?? "/").split("?")[0] ?? "/");
    requests.push({ method: req.method ?? "GET", path, headers: req.headers });
    if (faults.notFound) return void res.writeHead(404).end("Entry not found");
    if (faults.requireToken && req.headers.authorization !== `Bearer ${faults.requireToken}`) {
      return void res.writeHead(401).end("Invalid credentials");
    }
    const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)\/?(.*)$/.exec(path);
    if (tree) return listTree(res, hub, `${tree[1]}/`, tree[3] ?? "");
    const resolved = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
    const file = resolved
      ? hub.find((f) => f.at === `${resolved[1]}/${resolved[2]}`)
      : plain.get(path);
    if (!file) return void res.writeHead(404).end("Entry not found");
    void sendFile(req.method ?? "GET", req.headers.range, res, file.bytes, faults);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    downloads: () => requests.filter((r) => r.method === "GET" && !r.path.startsWith("/api/")),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listTree(res: ServerResponse, hub: HostedFile[], repoPrefix: string, dir: string): void {
  const prefix = dir ? `${dir.replace(/\/$/, "")}/` : "";
  const inDir = hub
    .filter((f) => f.at.startsWith(repoPrefix + prefix))
    .map((f) => ({ file: f, path: f.at.slice(repoPrefix.length) }))
    .filter(({ path }) => !path.slice(prefix.length).includes("/"));
  if (inDir.length === 0 && prefix) return void res.writeHead(404).end("Entry not found");
  const entries = inDir.map(({ file, path }) => ({
    type: "file",
    oid: createHash("sha1").update(file.bytes).digest("hex"),
    size: file.bytes.length,
    path,
    lfs: {
      oid: createHash("sha256").update(file.bytes).digest("hex"),
      size: file.bytes.length,
      pointerSize: 134,
    },
  }));
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entries));
}

async function sendFile(
  method: string,
  range: string | undefined,
  res: ServerResponse,
  source: Buffer,
  faults: Faults,
): Promise<void> {
  if (method === "HEAD") {
    return void res.writeHead(200, { "content-length": source.length }).end();
  }
  const fault = takeOneTimeFaults(faults);
  let bytes = source;
  if (fault.corrupt) {
    bytes = Buffer.from(source);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
  }
  const start = Number(/^bytes=(\d+)-$/.exec(range ?? "")?.[1] ?? 0);
  if (start > 0 && !fault.ignoreRange) {
    if (start >= bytes.length) {
      return void res.writeHead(416, { "content-range": `bytes */${bytes.length}` }).end();
    }
    res.writeHead(206, {
      "content-length": bytes.length - start,
      "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
    });
    bytes = bytes.subarray(start);
  } else {
    res.writeHead(200, { "content-length": bytes.length, "accept-ranges": "bytes" });
  }

  const limit = fault.cutAfter ?? fault.stallAfter ?? bytes.length;
  for (let sent = 0; sent < limit && !res.destroyed; sent += CHUNK) {
    const chunk = bytes.subarray(sent, Math.min(sent + CHUNK, limit));
    if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
    if (faults.chunkDelayMs) await sleep(faults.chunkDelayMs);
  }
  if (fault.cutAfter !== undefined) {
    // Let the bytes written so far reach the client before the socket goes.
    res.write("", () => res.socket?.destroy());
  } else if (fault.stallAfter === undefined) {
    res.end();
  }
}

function takeOneTimeFaults(faults: Faults): Faults {
  const taken = {
    cutAfter: faults.cutAfter,
    stallAfter: faults.stallAfter,
    corrupt: faults.corrupt,
    ignoreRange: faults.ignoreRange,
  };
  faults.cutAfter = undefined;
  faults.stallAfter = undefined;
  faults.corrupt = undefined;
  faults.ignoreRange = undefined;
  return taken;
}

/** `size` bytes that start with the GGUF magic and go on with seeded pseudo-random bytes. */
export function fakeGguf(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    // xorshift32: fast, and the same bytes for the same seed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  bytes.write("GGUF", 0, "latin1");
  return bytes;
}

export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
