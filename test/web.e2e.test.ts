// web_fetch through the built CLI, with the fake Anthropic model calling it and web servers on
// 127.0.0.1: a page from a host the user's allowHosts lists comes back without its script or
// style text, paged by offset to its end; a 60 MB body is cut at 10 MB; loopback in every
// spelling, file: and gopher: URLs and a redirect into loopback are refused, and the server
// behind them sees no connection; without a terminal an unlisted domain is refused naming the
// rule, and fetched once the rule is in the user's settings.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { startWebServer, type WebServer } from "./support/web-server.js";

const PARAGRAPHS = Array.from({ length: 5_500 }, (_, n) => `<p>line ${n} of the manual</p>`).join(
  "\n",
);
const MANUAL = `<html><head><title>The Manual</title><style>p { color: SECRET-STYLE }</style>
<script>window.leak = "SECRET-SCRIPT"</script></head><body><h1>Manual</h1>${PARAGRAPHS}</body></html>`;

let model: FakeModel;
let docs: WebServer;
let internal: WebServer;
let hugeBytesSent = 0;

beforeAll(async () => {
  model = await startFakeModel("anthropic");
  internal = await startWebServer({ "/": (_, response) => response.end("internal only") });
  docs = await startWebServer({
    "/manual": (_, response) =>
      response.writeHead(200, { "content-type": "text/html" }).end(MANUAL),
    "/into-loopback": (_, response) =>
      response.writeHead(302, { location: `http://127.0.0.1:${internal.port}/` }).end(),
    "/huge": (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      const piece = Buffer.alloc(256 * 1024, "y");
      const more = () => {
        while (hugeBytesSent < 60 * 1024 * 1024) {
          hugeBytesSent += piece.length;
          if (!response.write(piece)) return void response.once("drain", more);
        }
        response.end();
      };
      response.on("error", () => undefined);
      more();
    },
  });
});

afterAll(async () => {
  await Promise.all([model.close(), docs.close(), internal.close()]);
});

function userSettings(sandbox: Sandbox, settings: Record<string, unknown>) {
  const directory = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "settings.json"), JSON.stringify(settings));
}

const run = (sandbox: Sandbox, args: string[]) =>
  runCli(["--tools", "read,web_fetch", ...args, "-p", "read the docs"], {
    env: { ...sandbox.env, ...model.env() },
    cwd: sandbox.workspace,
  });

/** The text of every tool result the model was sent, in order. */
function resultsSent(from: number): string[] {
  return model
    .requests()
    .slice(from)
    .flatMap((request) => {
      const last = (JSON.parse(request.body) as { messages: { content: unknown }[] }).messages.at(
        -1,
      );
      const blocks = Array.isArray(last?.content)
        ? (last.content as Record<string, unknown>[])
        : [];
      return blocks.flatMap((block) =>
        block.type === "tool_result" ? [JSON.stringify(block.content)] : [],
      );
    });
}

describe("web_fetch through the CLI", () => {
  it("reads a page of an allowHosts host to its end by offset, without its script or style", async () => {
    const sandbox = freshSandbox();
    userSettings(sandbox, { webFetch: { allowHosts: [`127.0.0.1:${docs.port}`] } });
    const url = `${docs.origin}/manual`;
    model.script([
      reply(toolUse("f1", "web_fetch", { url })),
      reply(toolUse("f2", "web_fetch", { url, offset: 50_000 })),
      reply(toolUse("f3", "web_fetch", { url, offset: 100_000 })),
      reply(text("Read it all.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox, [
      "--dangerously-skip-permissions",
      "--output-format",
      "stream-json",
    ]);
    expect(result.code).toBe(0);
    const [first, second, third] = resultsSent(before);
    expect(first).toContain("Title: The Manual");
    expect(first).toContain("line 0 of the manual");
    expect(first).toContain("offset 50000 for the next part");
    expect(second).toContain("offset 100000 for the next part");
    expect(third).toContain("line 5499 of the manual");
    expect(third).not.toContain("for the next part");
    for (const part of [first, second, third]) {
      expect(part).not.toContain("SECRET-SCRIPT");
      expect(part).not.toContain("SECRET-STYLE");
    }
    // Fetched once; the other parts came from the page kept.
    expect(docs.requests.filter((path) => path === "/manual")).toHaveLength(1);
    const fetches = result.stdout
      .split("\n")
      .filter((line) => line.includes('"type":"part"') && line.includes('"name":"fetch"'));
    expect(fetches).toHaveLength(1);
    expect(fetches[0]).toContain(`fetched ${url} (HTTP 200`);
  });

  it("cuts a 60 MB body at 10 MB, says so, and stops reading it", async () => {
    const sandbox = freshSandbox();
    userSettings(sandbox, { webFetch: { allowHosts: [`127.0.0.1:${docs.port}`] } });
    model.script([
      reply(toolUse("f1", "web_fetch", { url: `${docs.origin}/huge`, offset: 10_000_000 })),
      reply(text("Big.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox, ["--dangerously-skip-permissions"]);
    expect(result.code).toBe(0);
    const [sent] = resultsSent(before);
    expect(sent).toContain(
      "The page is larger than 10.0 MB: only its first 10.0 MB were downloaded",
    );
    // The connection was closed at the cap: the server could not send the other 50 MB.
    expect(hugeBytesSent).toBeLessThan(30 * 1024 * 1024);
  });

  it("refuses loopback in every spelling, file: and gopher:, and a redirect into loopback; the server behind them sees nothing", async () => {
    const sandbox = freshSandbox();
    userSettings(sandbox, { webFetch: { allowHosts: [`127.0.0.1:${docs.port}`] } });
    const port = internal.port;
    const urls = [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://0.0.0.0:${port}/`,
      "file:///etc/passwd",
      `gopher://127.0.0.1:${port}/`,
      `${docs.origin}/into-loopback`,
    ];
    model.script([
      reply(...urls.map((url, index) => toolUse(`f${index}`, "web_fetch", { url }))),
      reply(text("None of them.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox, ["--dangerously-skip-permissions"]);
    expect(result.code).toBe(0);
    const sent = resultsSent(before);
    expect(sent).toHaveLength(urls.length);
    for (const refusal of sent.slice(0, 7))
      expect(refusal).toMatch(/Refused: .*(loopback|unspecified|IPv4-mapped)/);
    expect(sent[7]).toContain("Only http and https URLs can be fetched; file is not one.");
    expect(sent[8]).toContain("Only http and https URLs can be fetched; gopher is not one.");
    expect(sent[9]).toContain(`Refused: 127.0.0.1 is loopback`);
    expect(docs.requests).toContain("/into-loopback");
    expect(internal.connections).toBe(0);
  });

  it("without a terminal refuses a domain no rule allows, naming the rule, and fetches it once the rule is in the user's settings", async () => {
    const sandbox = freshSandbox();
    const allowHosts = [`127.0.0.1:${docs.port}`];
    userSettings(sandbox, { webFetch: { allowHosts } });
    const url = `${docs.origin}/manual`;
    model.script([reply(toolUse("f1", "web_fetch", { url })), reply(text("Not allowed."))]);
    const before = model.requestCount();
    const requestsBefore = docs.requests.length;
    expect((await run(sandbox, ["--permission-mode", "auto"])).code).toBe(0);
    expect(resultsSent(before)[0]).toContain(
      'fetching from 127.0.0.1 is not allowed by any rule, and there is no terminal to ask. To allow it, add \\"web_fetch(domain:127.0.0.1)\\"',
    );
    expect(docs.requests.length).toBe(requestsBefore);

    userSettings(sandbox, {
      webFetch: { allowHosts },
      permissions: { allow: ["web_fetch(domain:127.0.0.1)"] },
    });
    model.script([reply(toolUse("f1", "web_fetch", { url })), reply(text("Read."))]);
    const again = model.requestCount();
    expect((await run(sandbox, ["--permission-mode", "auto"])).code).toBe(0);
    expect(resultsSent(again)[0]).toContain("Title: The Manual");
  });

  it("is offered without --tools to a hosted model: a headless run fetches a page the settings allow", async () => {
    const sandbox = freshSandbox();
    userSettings(sandbox, {
      webFetch: { allowHosts: [`127.0.0.1:${docs.port}`] },
      permissions: { allow: ["web_fetch(domain:127.0.0.1)"] },
    });
    const url = `${docs.origin}/manual`;
    model.script([reply(toolUse("f1", "web_fetch", { url })), reply(text("Read."))]);
    const before = model.requestCount();
    const result = await runCli(["--permission-mode", "auto", "-p", "read this page"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(result.code, result.stderr).toBe(0);
    const tools = JSON.parse(model.requests()[before]?.body ?? "{}").tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toContain("web_fetch");
    expect(resultsSent(before)[0]).toContain("Title: The Manual");
  });
});
