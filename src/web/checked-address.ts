// The address a fetch connects to, decided before any connection: the URL's scheme is http or
// https, its name resolves, and every address it resolves to is public. The request is then
// made to the address checked here (see pinned-request.ts), so a resolver that answers
// differently the second time (DNS rebinding) is never asked a second time.

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { nonPublicReason } from "./address-class.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name has. The tests give one that maps made-up names without any DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface AddressPolicy {
  resolve: Resolver;
  /**
   * "host:port" names whose addresses are not checked (the user's `webFetch.allowHosts`: an
   * intranet wiki, a dev server). Every other name must resolve to public addresses only.
   */
  allowHosts: readonly string[];
}

/** A fetch refused before any connection was made; its message says why, for the model. */
export class FetchRefused extends Error {}

/** The URL's host without IPv6 brackets, and its port (the scheme's default when not written). */
export function hostAndPort(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host, port };
}

/** The address to connect to for `url`; throws FetchRefused when it must not be fetched. */
export async function checkedAddress(url: URL, policy: AddressPolicy): Promise<ResolvedAddress> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefused(
      `Only http and https URLs can be fetched; ${url.protocol.replace(/:$/, "")} is not one.`,
    );
  }
  const { host, port } = hostAndPort(url);
  const exempt = policy.allowHosts.some((name) => name.toLowerCase() === `${host}:${port}`);
  const literal = isIP(host);
  if (literal) {
    const address = { address: host, family: literal === 6 ? 6 : 4 } as const;
    if (!exempt) refuseUnlessPublic(address.address, `${host} is`);
    return address;
  }
  // RFC 6761: every name under localhost is this machine, whatever a resolver says.
  if (!exempt && (host === "localhost" || host.endsWith(".localhost"))) {
    throw new FetchRefused(refusal(`${host} is loopback`));
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.resolve(host);
  } catch (error) {
    throw new FetchRefused(`Cannot resolve ${host}: ${(error as Error).message}.`);
  }
  const first = addresses[0];
  if (!first) throw new FetchRefused(`${host} has no address.`);
  // Every address, not only the first: a name that also points inside is not public.
  if (!exempt) {
    for (const { address } of addresses)
      refuseUnlessPublic(address, `${host} resolves to ${address},`);
  }
  return first;
}

function refuseUnlessPublic(address: string, subject: string): void {
  const reason = nonPublicReason(address);
  if (reason !== null) throw new FetchRefused(refusal(`${subject} ${reason}`));
}

const refusal = (what: string) =>
  `Refused: ${what}, and web_fetch only reaches public internet addresses. No connection was made. To reach a host on your own network, list it as "host:port" in "webFetch": {"allowHosts": [...]} in your user settings (~/.config/agentloop/settings.json).`;
