// The provider's own web search through the built CLI: on Anthropic's API, web_search is sent
// as the web search server tool, the blocks of a search go back in the next request exactly as
// they came (encrypted content and all), and each search is an event with its query and
// results, whose price the session's cost counts. Chat Completions gets no search.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Usage } from "../src/core/messages.js";
import { costOf } from "../src/session/cost.js";
import {
  type FakeModel,
  firstRequestOf,
  freshSandbox,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse, webSearch } from "./support/fake-anthropic-server.js";

type Body = { tools?: Record<string, unknown>[]; messages?: { role: string; content: unknown }[] };

describe("web search on Anthropic's API", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("is offered as the server tool, and its blocks are sent back unchanged next turn", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "notes.txt"), "notes\n");
    const search = webSearch("srvtoolu_01", "agentloop release notes", [
      { title: "Release notes", url: "https://example.com/releases" },
      { title: "Changelog", url: "https://example.com/changelog" },
    ]);
    model.script([
      reply(...search, text("Found the notes."), toolUse("r1", "read", { file_path: "notes.txt" })),
      reply(text("Done.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(
      ["--tools", "read,web_search", "--output-format", "stream-json", "-p", "what changed?"],
      { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
    );
    expect(run.code).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    const [first, second] = model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as Body);
    const tools = first?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toEqual(["read", "web_search"]);
    expect(tools[1]).toMatchObject({
      type: "web_search_20250305",
      name: "web_search",
      max_uses: 5,
    });
    expect(tools[1]).not.toHaveProperty("input_schema");

    const answer = second?.messages?.find((message) => message.role === "assistant");
    const blocks = answer?.content as Record<string, unknown>[];
    expect(blocks.slice(0, 2)).toEqual(search);
    expect(blocks.slice(2).map((block) => block.type)).toEqual(["text", "tool_use"]);

    const events = run.stdout
      .split("\n")
      .filter((line) => line.includes('"type":"part"') && line.includes('"name":"search"'))
      .map((line) => JSON.parse(line) as { line: string; data: Record<string, unknown> });
    expect(events.map((event) => event.line)).toEqual([
      'searched the web for "agentloop release notes": 2 results (https://example.com/releases, https://example.com/changelog), $0.01',
    ]);
  });

  it("is offered by default, and the result's cost counts each search beside the tokens", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(
        ...webSearch("srvtoolu_a", "node 20 fetch", [
          { title: "Fetch", url: "https://example.com/a" },
        ]),
        ...webSearch("srvtoolu_b", "undici", [{ title: "Undici", url: "https://example.com/b" }]),
        text("Node 20 fetches with undici."),
      ),
    ]);
    const before = model.requestCount();
    const run = await runCli(["--output-format", "json", "-p", "how does node fetch?"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const sent = JSON.parse(model.requests()[before]?.body ?? "{}") as Body;
    expect(sent.tools?.at(-1)).toMatchObject({ type: "web_search_20250305", name: "web_search" });
    const result = JSON.parse(run.stdout) as { usage: Usage; total_cost_usd: number };
    const tokens = costOf("claude-haiku-4-5", result.usage) as number;
    expect(tokens).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeCloseTo(tokens + 0.02, 10);
  });

  it("is not offered when the tools list leaves it out", async () => {
    const sent = await firstRequestOf<Body>(model, ["--tools", "bash,read"]);
    expect((sent.tools ?? []).map((tool) => tool.name)).toEqual(["bash", "read"]);
  });
});

describe("web search elsewhere", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("openai");
  });
  afterAll(() => model.close());

  it("is not offered on Chat Completions", async () => {
    const sent = await firstRequestOf<Body>(model, ["--tools", "read,web_search"]);
    const names = (sent.tools ?? []).map((tool) => (tool.function as { name: string }).name);
    expect(names).toEqual(["read"]);
  });
});
