// A web server on 127.0.0.1 for web_fetch's tests: each path answers as its handler says, and
// every connection and request is counted, so a test can show that a refused fetch reached it
// not at all.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

export interface WebServer {
  port: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  connections: number;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startWebServer(routes: Record<string, Route>): Promise<WebServer> {
  const server = createServer((request, response) => {
    state.requests.push(request.url ?? "");
    const route = routes[(request.url ?? "").split("?")[0] as string];
    if (route) route(request, response);
    else response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
  });
  const state: WebServer = {
    port: 0,
    origin: "",
    connections: 0,
    requests: [],
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
  server.on("connection", () => {
    state.connections += 1;
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  return state;
}
