// An address where nothing listens, for what a client does when a server cannot be reached.

import { type AddressInfo, createServer } from "node:net";

/** A port on 127.0.0.1 that was free a moment ago, so a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

/** The http URL of `closedPort()`. */
export const closedPortUrl = async (): Promise<string> => `http://127.0.0.1:${await closedPort()}`;
