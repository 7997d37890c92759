// A guard for tests of code that must not dial an address it refused: every TCP connection this
// process starts is recorded, and one to anything but loopback fails before a packet leaves,
// even when the code under test is wrong. A name is let through only with a lookup that answers
// loopback; without one, Node would ask the system resolver, so that is refused too.

import { isIP, Socket } from "node:net";
import { nonPublicReason } from "../../src/web/address-class.js";

type Lookup = (
  host: string,
  options: object,
  callback: (error: Error | null, address: unknown, family?: number) => void,
) => void;

const isLoopback = (address: string) => nonPublicReason(address) === "loopback";

export interface Tripwire {
  /** "host:port" of every connection started, in order. */
  attempts: string[];
  remove(): void;
}

export function installTripwire(): Tripwire {
  const attempts: string[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as Record<string, unknown>;
    if (typeof options !== "object" || options === null || options.path) {
      return (original as (...a: unknown[]) => Socket).apply(this, args);
    }
    const host = String(options.host ?? "localhost");
    attempts.push(`${host}:${options.port}`);
    if (isIP(host) ? !isLoopback(host) : typeof options.lookup !== "function") {
      throw new Error(`tripwire: a test tried to connect to ${host}`);
    }
    if (!isIP(host)) {
      const lookup = options.lookup as Lookup;
      options.lookup = ((name, lookupOptions, callback) =>
        lookup(name, lookupOptions, (error, address, family) => {
          const all = Array.isArray(address) ? address : [{ address }];
          const outside = all.find((entry) => !isLoopback(String(entry.address)));
          if (!error && outside) {
            callback(
              new Error(`tripwire: ${name} was to be dialled at ${outside.address}`),
              address,
            );
          } else callback(error, address, family);
        })) satisfies Lookup;
    }
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  return {
    attempts,
    remove() {
      Socket.prototype.connect = original;
    },
  };
}
