// OpenAI's hosted web search through the built CLI, on the Responses API: offered by default as
// the `web_search` tool, each `web_search_call` item of a reply sent back unchanged with the
// next request (the fake server refuses an item it did not send as it is), each search an event
// with its query and the sources read, and its price in the run's cost.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Usage } from "../src/core/messages.js";
import { costOf } from "../src/session/cost.js";
import {
  type FakeModel,
  firstRequestOf,
  freshSandbox,
  jsonLines,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

type Item = { type?: string; id?: string; role?: string; action?: Record<string, unknown> };
type Body = { tools?: Record<string, unknown>[]; include?: string[]; input?: Item[] };

describe("web search on OpenAI's Responses API", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("responses");
  });
  afterAll(() => model.close());

  it("is offered by default, its items go back unchanged, and each search shows and is priced", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "notes.txt"), "notes\n");
    const searches = [{ query: "node lts", urls: ["https://nodejs.org/en/about/releases"] }];
    model.script([
      Object.assign(
        reply(text("Node 24 is the LTS."), toolUse("r1", "read", { file_path: "notes.txt" })),
        { searches },
      ),
      reply(text("Done.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(
      [...model.flags, "--output-format", "stream-json", "-p", "which node is LTS?"],
      { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
    );
    expect(run.code).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    const [first, second] = model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as Body);
    expect(first?.tools?.at(-1)).toEqual({ type: "web_search" });
    expect(first?.include).toContain("web_search_call.action.sources");

    const sentBack = (second?.input ?? []).filter((item) => item.type === "web_search_call");
    expect(sentBack).toEqual([
      {
        id: expect.stringMatching(/^ws_/),
        type: "web_search_call",
        status: "completed",
        action: {
          type: "search",
          query: "node lts",
          queries: ["node lts"],
          sources: [{ type: "url", url: "https://nodejs.org/en/about/releases" }],
        },
      },
    ]);
    const types = (second?.input ?? []).map((item) => item.type ?? item.role);
    const at = types.indexOf("web_search_call");
    expect(types.slice(at - 1, at + 3)).toEqual([
      "reasoning",
      "web_search_call",
      "message",
      "function_call",
    ]);

    const events = jsonLines<{
      type: string;
      name?: string;
      line?: string;
      usage?: Usage;
      total_cost_usd?: number;
    }>(run.stdout);
    const shown = events.filter((event) => event.type === "part" && event.name === "search");
    expect(shown.map((event) => event.line)).toEqual([
      'searched the web for "node lts": 1 result (https://nodejs.org/en/about/releases), $0.01',
    ]);
    const result = events.find((event) => event.type === "result");
    const tokens = costOf("gpt-6.1-sol", result?.usage as Usage) as number;
    expect(tokens).toBeGreaterThan(0);
    expect(result?.total_cost_usd).toBeCloseTo(tokens + 0.01, 10);
  });

  it("is not offered when --tools leaves it out", async () => {
    const sent = await firstRequestOf<Body>(model, ["--tools", "read"]);
    expect(sent.tools?.map((tool) => tool.type)).toEqual(["function"]);
    expect(sent.include ?? []).not.toContain("web_search_call.action.sources");
  });
});
