// JSON-RPC 2.0 over a language server's stdin and stdout, framed as the Language Server
// Protocol frames it: a `Content-Length` header, a blank line, then that many bytes of JSON.
// Small enough to own (agentloop carries no vscode-jsonrpc): requests with a time bound,
// notifications both ways, and an answer to every request the server makes of us.

import type { Readable, Writable } from "node:stream";

type Handler = (params: unknown) => void;
/** What we answer a request the server makes of us (workspace/configuration and the like). */
type Responder = (method: string, params: unknown) => unknown;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface Connection {
  /** The server's answer, or a rejection once `timeoutMs` passed, it answered an error or it closed. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  notify(method: string, params: unknown): void;
  onNotification(method: string, handler: Handler): void;
  /** Rejects every request still waiting; later ones reject at once. */
  close(reason: string): void;
}

const HEADER_END = "\r\n\r\n";

export function connect(input: Readable, output: Writable, respond: Responder): Connection {
  const pending = new Map<number, Pending>();
  const handlers = new Map<string, Handler>();
  let nextId = 1;
  let closed: string | null = null;
  let buffer = Buffer.alloc(0);

  const send = (message: Record<string, unknown>) => {
    if (closed !== null || output.destroyed) return;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
    output.write(`Content-Length: ${body.length}${HEADER_END}`);
    output.write(body);
  };

  const receive = (message: Record<string, unknown>) => {
    const { id, method } = message;
    if (typeof method === "string" && id !== undefined) {
      send({ id, result: respond(method, message.params) ?? null });
    } else if (typeof method === "string") {
      handlers.get(method)?.(message.params);
    } else if (typeof id === "number") {
      const waiting = pending.get(id);
      if (!waiting) return;
      pending.delete(id);
      clearTimeout(waiting.timer);
      const error = message.error as { message?: string } | undefined;
      if (error) waiting.reject(new Error(error.message ?? "the server answered an error"));
      else waiting.resolve(message.result);
    }
  };

  input.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf(HEADER_END);
      if (end < 0) return;
      const length = /content-length:\s*(\d+)/i.exec(buffer.subarray(0, end).toString("ascii"));
      if (!length) {
        // A header without a length cannot be framed: drop it and read on.
        buffer = buffer.subarray(end + HEADER_END.length);
        continue;
      }
      const start = end + HEADER_END.length;
      const stop = start + Number(length[1]);
      if (buffer.length < stop) return;
      const body = buffer.subarray(start, stop).toString("utf8");
      buffer = buffer.subarray(stop);
      try {
        receive(JSON.parse(body) as Record<string, unknown>);
      } catch {
        // One malformed message is skipped; the stream stays framed.
      }
    }
  });

  return {
    request(method, params, timeoutMs) {
      if (closed !== null) return Promise.reject(new Error(closed));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        send({ id, method, params });
      });
    },
    notify: (method, params) => send({ method, params }),
    onNotification: (method, handler) => handlers.set(method, handler),
    close(reason) {
      closed ??= reason;
      for (const waiting of pending.values()) {
        clearTimeout(waiting.timer);
        waiting.reject(new Error(reason));
      }
      pending.clear();
    },
  };
}
