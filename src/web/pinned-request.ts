// One GET to an address already checked: node:http's `lookup` option is answered with that
// address, so the socket goes where the check looked and no resolver is asked again. The body
// is read as it streams, decompressed, and cut at a byte cap (what is past it is never held).

import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { hostAndPort, type ResolvedAddress } from "./checked-address.js";

export interface RequestLimits {
  /** Until the TCP connection is made. */
  connectTimeoutMs: number;
  /** Bytes of the (decompressed) body kept; the rest is not read. */
  maxBytes: number;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** True when the body was longer than `maxBytes` and is cut there. */
  cut: boolean;
}

/** The reply's head only: a redirect's body is not read. */
export interface ReplyHead {
  status: number;
  headers: IncomingHttpHeaders;
  readBody(): Promise<{ body: Buffer; cut: boolean }>;
  discard(): void;
}

const USER_AGENT = "agentloop (web_fetch; +https://github.com/agentloop)";

/** Sends the request; `signal` ends it (the tool's interruption and its total time). */
export function pinnedGet(
  url: URL,
  target: ResolvedAddress,
  limits: RequestLimits,
  signal: AbortSignal,
): Promise<ReplyHead> {
  const { host, port } = hostAndPort(url);
  const pinned: LookupFunction = (_name, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send({
      host,
      port,
      path: `${url.pathname}${url.search}`,
      method: "GET",
      lookup: pinned,
      // A fresh connection each time: a pooled one could have been opened to another address.
      agent: false,
      signal,
      headers: {
        "user-agent": USER_AGENT,
        accept: "text/html, text/markdown, text/plain, application/json, image/*;q=0.9, */*;q=0.8",
        "accept-encoding": "gzip, deflate, br",
      },
    });
    request.once("socket", (socket) => {
      const timer = setTimeout(
        () =>
          request.destroy(
            new Error(`no connection to ${host} within ${limits.connectTimeoutMs / 1000} s`),
          ),
        limits.connectTimeoutMs,
      );
      socket.once("connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    request.once("error", reject);
    request.once("response", (response) => {
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        readBody: () => readCapped(decoded(response), limits.maxBytes, () => request.destroy()),
        discard: () => request.destroy(),
      });
    });
    request.end();
  });
}

/** The body as sent, decompressed; a failure on either side ends both (pipeline). */
function decoded(response: IncomingMessage): Readable {
  const decompress = decompressorFor(response.headers["content-encoding"]);
  return decompress ? pipeline(response, decompress, () => undefined) : response;
}

function decompressorFor(encoding: string | undefined) {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return null;
  }
}

/** Up to `maxBytes` of the stream; when there is more, the connection is closed (`stop`). */
async function readCapped(
  stream: Readable,
  maxBytes: number,
  stop: () => void,
): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      stop();
      return { body: Buffer.concat(chunks), cut: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), cut: false };
}
