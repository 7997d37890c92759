// Serves one session's viewer page on 127.0.0.1. The file is read again on every request, so
// reloading the page shows a session that is still being written.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../core/errors.js";
import { renderSessionPage } from "./render.js";

export interface ViewerServer {
  url: string;
  close(): Promise<void>;
}

export async function startViewerServer(sessionPath: string, port = 0): Promise<ViewerServer> {
  let origin = "";
  const server = createServer((request, response) => {
    handle(request, response, sessionPath, origin).catch((error: unknown) => {
      send(response, 500, "text/plain", `${error instanceof Error ? error.message : error}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, port)));
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  origin = `127.0.0.1:${address.port}`;
  return {
    url: `http://${origin}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  sessionPath: string,
  origin: string,
): Promise<void> {
  // A web page elsewhere could point its own hostname at 127.0.0.1 (DNS rebinding) and read
  // the transcript; only requests addressed to this server by its own name are answered.
  const host = request.headers.host ?? "";
  if (host !== origin && host !== origin.replace("127.0.0.1", "localhost")) {
    return send(response, 403, "text/plain", "Forbidden: unexpected Host header.\n");
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return send(response, 405, "text/plain", "Only GET is supported.\n");
  }
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (path !== "/" && path !== "/index.html")
    return send(response, 404, "text/plain", "Not found.\n");
  const { html } = await renderSessionPage(sessionPath);
  send(response, 200, "text/html; charset=utf-8", html);
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  response.end(body);
}

function listenError(error: NodeJS.ErrnoException, port: number): Error {
  switch (error.code) {
    case "EADDRINUSE":
      return new ConfigError(
        `Port ${port} is already in use; choose another with --port, or leave it out to get a free one.`,
      );
    case "EACCES":
      return new ConfigError(`Port ${port} needs more privileges; choose one above 1023.`);
    default:
      return error;
  }
}
