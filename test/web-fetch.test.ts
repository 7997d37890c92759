import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ToolOutput } from "../src/core/tool.js";
import { noRules } from "../src/permissions/rules.js";
import type { Resolver } from "../src/web/checked-address.js";
import { createFetchGate } from "../src/web/fetch-gate.js";
import { createWebFetchTool, type WebFetchInput } from "../src/web/web-fetch-tool.js";
import { startWebServer, type WebServer } from "./support/web-server.js";
import { installTripwire, type Tripwire } from "./support/web-tripwire.js";

// Real HTTP from a server on 127.0.0.1. The made-up names resolve through a table, never DNS;
// the tripwire fails any connection to an address outside loopback before it is made.

const PAGE = `<!doctype html><html><head><title>Install &amp; use</title>
<style>body { color: hotpink }</style><script>var tracking = "SECRET-SCRIPT";</script></head>
<body><h1>Getting started</h1><p>Run <code>npm install</code> first.</p>
<script>document.write("SECRET-INLINE")</script><noscript>enable scripts</noscript>
<ul><li>one</li><li>two</li></ul></body></html>`;

const LONG = `<html><body>${Array.from({ length: 300 }, (_, n) => `<p>paragraph ${n} of the long page</p>`).join("")}</body></html>`;

let server: WebServer;
let other: WebServer;
let tripwire: Tripwire;
let png: Buffer;
const downloads: string[] = [];

beforeAll(async () => {
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#3366ff" } })
    .png()
    .toBuffer();
  server = await startWebServer({
    "/guide": (_, response) =>
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE),
    "/long": (_, response) => response.writeHead(200, { "content-type": "text/html" }).end(LONG),
    "/data.json": (_, response) =>
      response.writeHead(200, { "content-type": "application/json" }).end('{"a": [1, 2]}'),
    "/zipped": (_, response) =>
      response
        .writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
        .end(gzipSync("plain words, zipped")),
    "/logo.png": (_, response) => response.writeHead(200, { "content-type": "image/png" }).end(png),
    "/archive.bin": (_, response) =>
      response
        .writeHead(200, { "content-type": "application/octet-stream" })
        .end(Buffer.from([0, 1, 2, 3, 254, 255])),
    "/huge": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      // 8 MB offered in 64 KB pieces, as long as the client reads.
      const piece = Buffer.alloc(64 * 1024, "x");
      let sent = 0;
      const more = () => {
        while (sent < 128) {
          sent += 1;
          if (!response.write(piece)) return void response.once("drain", more);
        }
        response.end();
      };
      more();
    },
    "/slow": () => undefined,
    "/missing": (_, response) =>
      response.writeHead(404, { "content-type": "text/plain" }).end("not here"),
    "/to-loopback": (_, response) =>
      response.writeHead(302, { location: `${other.origin}/secret` }).end(),
    "/to-localhost": (_, response) =>
      response.writeHead(301, { location: `http://localhost:${other.port}/` }).end(),
    "/to-elsewhere": (_, response) =>
      response.writeHead(302, { location: "https://elsewhere.example.test/page" }).end(),
    "/to-guide": (_, response) => response.writeHead(307, { location: "/guide" }).end(),
  });
  other = await startWebServer({ "/secret": (_, response) => response.end("internal secret") });
  tripwire = installTripwire();
});

afterAll(async () => {
  tripwire.remove();
  await Promise.all([server.close(), other.close()]);
});

afterEach(() => {
  for (const dir of downloads.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A resolver of made-up names: docs.example.test is the test server, the rest is as named. */
function resolver(): Resolver & { asked: string[] } {
  const table: Record<string, string> = {
    "docs.example.test": "127.0.0.1",
    "private.example.test": "10.20.30.40",
    "metadata.example.test": "169.254.169.254",
    "elsewhere.example.test": "93.184.215.14",
  };
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const address = table[host];
    if (!address) throw new Error(`no such name ${host}`);
    return [{ address, family: 4 as const }];
  };
  return Object.assign(resolve, { asked });
}

interface SetupOptions {
  maxBytes?: number;
  totalTimeoutMs?: number;
  pageChars?: number;
  /** Allow rules, judged in auto mode; without them the gate is yolo's. */
  allow?: string[];
}

function setup(options: SetupOptions = {}) {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-web-test-"));
  downloads.push(directory);
  const resolve = resolver();
  const fetched: { url: string; bytes: number }[] = [];
  const tool = createWebFetchTool({
    fetch: {
      connectTimeoutMs: 2_000,
      totalTimeoutMs: options.totalTimeoutMs ?? 5_000,
      maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
      policy: { resolve, allowHosts: [`docs.example.test:${server.port}`] },
    },
    gate: createFetchGate({
      mode: () => (options.allow ? "auto" : "yolo"),
      rules: { ...noRules(), allow: options.allow ?? [] },
      workspace: directory,
      env: {},
    }),
    pageChars: options.pageChars ?? 50_000,
    downloads: directory,
    onFetched: (event) => fetched.push(event),
  });
  const fetch = (input: WebFetchInput): Promise<ToolOutput> =>
    tool.run(input, { signal: new AbortController().signal });
  return { fetch, resolve, fetched, docs: `http://docs.example.test:${server.port}` };
}

describe("web_fetch reads a page from an allowed host", () => {
  it("gives HTML as Markdown with its title, without the text of scripts and styles", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/guide` });
    expect(result.isError).toBe(false);
    expect(result.content).toContain("Title: Install & use");
    expect(result.content).toContain("# Getting started");
    expect(result.content).toContain("Run `npm install` first.");
    expect(result.content).toContain("* one");
    for (const hidden of ["SECRET-SCRIPT", "SECRET-INLINE", "hotpink", "enable scripts"]) {
      expect(result.content).not.toContain(hidden);
    }
    expect(result.content.split("\n")[0]).toMatch(
      /^http:\/\/docs\.example\.test:\d+\/guide \(HTTP 200, text\/html, \d+ bytes\)$/,
    );
  });

  it("pages a long page by offset, from the page it keeps instead of fetching again", async () => {
    const { fetch, docs } = setup({ pageChars: 2_000 });
    const before = server.requests.filter((path) => path === "/long").length;
    let offset = 0;
    const seen: string[] = [];
    for (let part = 0; part < 50; part++) {
      const result = await fetch({ url: `${docs}/long`, offset });
      seen.push(result.content);
      const next = /offset (\d+) for the next part/.exec(result.content);
      if (!next) break;
      offset = Number(next[1]);
    }
    const all = seen.join("\n");
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(all).toContain("paragraph 0 of the long page");
    expect(all).toContain("paragraph 299 of the long page");
    expect(seen.at(-1)).not.toContain("for the next part");
    expect(server.requests.filter((path) => path === "/long").length - before).toBe(1);
  });

  it("refuses an offset past the end", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/data.json`, offset: 9_999 });
    expect(result).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Offset 9999 is past the end/),
    });
  });

  it("gives JSON as it is, and compressed text decompressed", async () => {
    const { fetch, docs } = setup();
    expect((await fetch({ url: `${docs}/data.json` })).content).toMatch(/\n\n\{"a": \[1, 2\]\}$/);
    expect((await fetch({ url: `${docs}/zipped` })).content).toMatch(/\n\nplain words, zipped$/);
  });

  it("gives an image as an image part", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/logo.png` });
    expect(result.content).toContain("An image: PNG 40×30.");
    expect(result.images).toEqual([
      { type: "image", mediaType: "image/png", data: png.toString("base64") },
    ]);
  });

  it("saves other binary content to a file and names it", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/archive.bin` });
    const path = /saved to (\S+)\.$/.exec(result.content)?.[1] as string;
    expect(path).toMatch(/archive\.bin$/);
    expect([...readFileSync(path)]).toEqual([0, 1, 2, 3, 254, 255]);
  });

  it("cuts a body larger than the cap, says so, and keeps no more than the cap", async () => {
    const { fetch, docs, fetched } = setup({ maxBytes: 1024 * 1024 });
    const result = await fetch({ url: `${docs}/huge`, offset: 1_000_000 });
    expect(result.content).toContain(
      "The page is larger than 1.0 MB: only its first 1.0 MB were downloaded",
    );
    expect(fetched.at(-1)?.bytes).toBe(1024 * 1024);
  });

  it("gives up on a server that does not answer within the total time", async () => {
    const { fetch, docs } = setup({ totalTimeoutMs: 300 });
    const result = await fetch({ url: `${docs}/slow` });
    expect(result).toEqual({
      isError: true,
      content: `Cannot fetch ${docs}/slow: it did not arrive within 0.3 s.`,
    });
  });

  it("marks an HTTP error as an error result, with what the server said", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/missing` });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("(HTTP 404, text/plain, 8 bytes)");
    expect(result.content).toContain("not here");
  });

  it("follows a redirect on the same host", async () => {
    const { fetch, docs } = setup();
    const result = await fetch({ url: `${docs}/to-guide` });
    expect(result.content).toContain("# Getting started");
  });
});

describe("web_fetch makes no connection to an address it refuses", () => {
  it.each([
    "http://127.0.0.1:PORT/secret",
    "http://localhost:PORT/secret",
    "http://[::1]:PORT/secret",
    "http://[::ffff:127.0.0.1]:PORT/secret",
    "http://2130706433:PORT/secret",
    "http://0x7f000001:PORT/secret",
    "http://0.0.0.0:PORT/secret",
    "http://127.1:PORT/secret",
  ])("refuses %s, and the server there sees nothing", async (spelled) => {
    const { fetch } = setup();
    const before = { connections: other.connections, attempts: tripwire.attempts.length };
    const result = await fetch({ url: spelled.replace("PORT", String(other.port)) });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Refused: .*(loopback|unspecified|IPv4-mapped)/);
    expect(other.connections).toBe(before.connections);
    expect(tripwire.attempts.length).toBe(before.attempts);
  });

  it.each([
    ["http://private.example.test/", "10.20.30.40, a private network"],
    ["http://metadata.example.test/latest/meta-data/", "169.254.169.254, link-local"],
  ])("refuses %s, a name that resolves inside, before dialling anything", async (url, reason) => {
    const { fetch } = setup();
    const before = tripwire.attempts.length;
    const result = await fetch({ url });
    expect(result.content).toContain(reason);
    expect(tripwire.attempts.length).toBe(before);
  });

  it.each([
    ["/to-loopback", "127.0.0.1 is loopback"],
    ["/to-localhost", "localhost is loopback"],
  ])(
    "refuses the redirect of %s into loopback, and its target sees nothing",
    async (path, reason) => {
      const { fetch, docs } = setup();
      const before = other.connections;
      const result = await fetch({ url: `${docs}${path}` });
      expect(result).toMatchObject({ isError: true, content: expect.stringContaining(reason) });
      expect(other.connections).toBe(before);
    },
  );

  it("does not follow a redirect to another host that needs its own permission", async () => {
    const { fetch, docs, resolve } = setup({ allow: ["web_fetch(domain:docs.example.test)"] });
    const result = await fetch({ url: `${docs}/to-elsewhere` });
    expect(result.content).toBe(
      `${docs}/to-elsewhere redirects to another host: https://elsewhere.example.test/page. It was not followed; call web_fetch with that URL to fetch it.`,
    );
    expect(resolve.asked).not.toContain("elsewhere.example.test");
  });

  it("refuses a gopher: URL", async () => {
    const { fetch } = setup();
    expect(await fetch({ url: "gopher://docs.example.test/" })).toEqual({
      isError: true,
      content: "Only http and https URLs can be fetched; gopher is not one.",
    });
  });

  it("connects to the address it checked and asks the resolver once, so a rebinding name cannot move it", async () => {
    const { fetch, docs, resolve } = setup();
    await fetch({ url: `${docs}/guide?rebinding` });
    expect(resolve.asked.filter((name) => name === "docs.example.test")).toEqual([
      "docs.example.test",
    ]);
    expect(server.requests).toContain("/guide?rebinding");
    // The tripwire saw this connection: it is watching.
    expect(tripwire.attempts).toContain(`docs.example.test:${server.port}`);
  });
});
