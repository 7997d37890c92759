import { describe, expect, it } from "vitest";
import { nonPublicReason } from "../src/web/address-class.js";
import { checkedAddress, FetchRefused, type Resolver } from "../src/web/checked-address.js";

// Pure decisions: nothing here opens a socket, so every range can be named without a packet.

describe("the address classifier lets only public unicast addresses through", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["0.0.0.0", "the unspecified network ('this host')"],
    ["10.1.2.3", "a private network"],
    ["172.16.0.1", "a private network"],
    ["172.31.255.255", "a private network"],
    ["192.168.1.1", "a private network"],
    ["169.254.169.254", "link-local (where cloud metadata services answer)"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.1", "benchmarking"],
    ["224.0.0.251", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "reserved (and broadcast)"],
    ["192.0.2.10", "documentation"],
    ["::1", "loopback"],
    ["::", "the unspecified address"],
    ["::ffff:127.0.0.1", "an IPv4-mapped address"],
    ["::ffff:8.8.8.8", "an IPv4-mapped address"],
    ["::127.0.0.1", "an IPv4-compatible address"],
    ["64:ff9b::a00:1", "NAT64, which hides an IPv4 address"],
    ["fc00::1", "a unique local address (fc00::/7)"],
    ["fd12:3456::1", "a unique local address (fc00::/7)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2002:7f00:1::1", "6to4, which hides an IPv4 address"],
    ["2001:0:4136:e378::1", "IETF protocol assignments (Teredo and others)"],
    ["[::1]", "loopback"],
    ["not-an-address", "not an IP address"],
  ])("%s is refused as %s", (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "172.32.0.1",
    "100.128.0.1",
    "198.20.0.1",
    "2606:4700::1111",
    "2a00:1450:4001:82b::200e",
  ])("%s is public", (address) => {
    expect(nonPublicReason(address)).toBeNull();
  });
});

/** A resolver that answers from a table and counts what it was asked. */
function table(entries: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const addresses = entries[host];
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return addresses.map(
      (address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const,
    );
  };
  return Object.assign(resolve, { asked });
}

const refusedFor = async (url: string, resolve: Resolver, allowHosts: string[] = []) => {
  const outcome = await checkedAddress(new URL(url), { resolve, allowHosts }).catch(
    (error) => error,
  );
  expect(outcome).toBeInstanceOf(FetchRefused);
  return (outcome as FetchRefused).message;
};

describe("the address check before a fetch", () => {
  it("refuses a name that resolves to the cloud metadata address", async () => {
    const message = await refusedFor(
      "http://metadata.example.test/",
      table({ "metadata.example.test": ["169.254.169.254"] }),
    );
    expect(message).toContain("metadata.example.test resolves to 169.254.169.254, link-local");
    expect(message).toContain("No connection was made");
  });

  it("refuses a name when any one of its addresses is private, not only the first", async () => {
    const resolve = table({ "mixed.example.test": ["93.184.215.14", "10.0.0.7"] });
    expect(await refusedFor("https://mixed.example.test/", resolve)).toContain(
      "10.0.0.7, a private network",
    );
  });

  it.each([
    ["http://10.0.0.1/", "10.0.0.1 is a private network"],
    ["http://[fd00::1]/", "fd00::1 is a unique local address"],
    ["http://[::ffff:169.254.169.254]/", "is an IPv4-mapped address"],
    ["http://100.64.1.1/", "100.64.1.1 is carrier-grade NAT"],
    ["http://0x7f000001/", "127.0.0.1 is loopback"],
    ["http://2130706433/", "127.0.0.1 is loopback"],
  ])("refuses %s without asking any resolver", async (url, expected) => {
    const resolve = table({});
    expect(await refusedFor(url, resolve)).toContain(expected);
    expect(resolve.asked).toEqual([]);
  });

  it("refuses localhost and its subdomains without asking any resolver", async () => {
    const resolve = table({ localhost: ["93.184.215.14"], "app.localhost": ["93.184.215.14"] });
    expect(await refusedFor("http://localhost:3000/", resolve)).toContain("localhost is loopback");
    expect(await refusedFor("http://app.localhost/", resolve)).toContain(
      "app.localhost is loopback",
    );
    expect(resolve.asked).toEqual([]);
  });

  it.each(["file:///etc/passwd", "gopher://example.com/", "ftp://example.com/"])(
    "refuses the scheme of %s",
    async (url) => {
      expect(await refusedFor(url, table({}))).toMatch(/^Only http and https URLs can be fetched/);
    },
  );

  it("gives the checked public address, the one the request will connect to", async () => {
    const resolve = table({ "docs.example.test": ["93.184.215.14", "2606:2800:220:1::248"] });
    const target = await checkedAddress(new URL("https://docs.example.test/page"), {
      resolve,
      allowHosts: [],
    });
    expect(target).toEqual({ address: "93.184.215.14", family: 4 });
  });

  it("lets a host:port of the user's allowHosts through, and only on that port", async () => {
    const resolve = table({ "wiki.internal.test": ["10.1.1.1"] });
    const allowHosts = ["wiki.internal.test:8080"];
    const target = await checkedAddress(new URL("http://wiki.internal.test:8080/"), {
      resolve,
      allowHosts,
    });
    expect(target.address).toBe("10.1.1.1");
    expect(await refusedFor("http://wiki.internal.test/", resolve, allowHosts)).toContain(
      "a private network",
    );
  });

  it("says so when a name does not resolve", async () => {
    expect(await refusedFor("http://nowhere.example.test/", table({}))).toBe(
      "Cannot resolve nowhere.example.test: getaddrinfo ENOTFOUND nowhere.example.test.",
    );
  });
});
