import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import type { Message } from "../src/core/messages.js";
import { createProvider } from "../src/providers/create-provider.js";
import { resolveProvider } from "../src/providers/presets.js";
import type { Provider } from "../src/providers/provider.js";
import { drain } from "./support/drain.js";
import { startFakeAnthropic } from "./support/fake-anthropic-server.js";
import { startFakeOpenAI } from "./support/fake-openai-server.js";
import { bash } from "./support/scripted-provider.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A history whose last tool call has no result, as a killed run leaves it. */
const interrupted: Message[] = [
  { role: "user", content: "list the files" },
  { role: "assistant", content: [bash("call_1", "ls")] },
];

function build(choice: Parameters<typeof resolveProvider>[0], repairs: string[] = []): Provider {
  const resolved = resolveProvider(choice);
  if (resolved instanceof ConfigError) throw resolved;
  return createProvider(resolved, { onRepair: (repair) => repairs.push(repair) });
}

function send(provider: Provider, messages: Message[]) {
  const signal = new AbortController().signal;
  return drain(provider.stream({ system: "test", messages, tools: [], signal }));
}

describe("creating the provider a configuration names", () => {
  it("talks to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY over the Anthropic protocol", async () => {
    const fake = await startFakeAnthropic();
    closers.push(() => fake.close());
    fake.script([{ kind: "reply", content: [{ type: "text", text: "hello from claude" }] }]);
    const repairs: string[] = [];
    const provider = build(
      { env: { ANTHROPIC_API_KEY: "sk-ant", ANTHROPIC_BASE_URL: fake.url, MODEL_ID: "claude-t" } },
      repairs,
    );
    const { result } = await send(provider, interrupted);
    expect(provider).toMatchObject({ name: "anthropic", model: "claude-t" });
    expect(result.message.content).toEqual([{ type: "text", text: "hello from claude" }]);
    expect(fake.requests[0]?.body.model).toBe("claude-t");
    expect(JSON.stringify(fake.requests[0]?.headers)).toContain("sk-ant");
    expect(repairs).toEqual([
      "Answered tool call call_1 (bash), which had no result, with an error.",
    ]);
  });

  it("talks to a local preset over Chat Completions, named after the preset, with no key", async () => {
    const fake = await startFakeOpenAI();
    closers.push(() => fake.close());
    fake.script([{ kind: "reply", content: [{ type: "text", text: "hello from ollama" }] }]);
    const repairs: string[] = [];
    const provider = build(
      { provider: "ollama", model: "qwen2.5-coder", baseURL: fake.url, env: {} },
      repairs,
    );
    const { result } = await send(provider, interrupted);
    expect(provider).toMatchObject({ name: "ollama", model: "qwen2.5-coder" });
    expect(result.message.content).toEqual([{ type: "text", text: "hello from ollama" }]);
    expect(fake.requests[0]?.body.model).toBe("qwen2.5-coder");
    expect(fake.requests[0]?.headers).not.toHaveProperty("authorization");
    expect(repairs).toEqual([
      "Answered tool call call_1 (bash), which had no result, with an error.",
    ]);
  });

  it("sends OPENAI_API_KEY to the server OPENAI_BASE_URL names", async () => {
    const fake = await startFakeOpenAI();
    closers.push(() => fake.close());
    fake.script([{ kind: "reply", content: [{ type: "text", text: "ok" }] }]);
    const provider = build({ env: { OPENAI_API_KEY: "sk-oai", OPENAI_BASE_URL: fake.url } });
    await send(provider, [{ role: "user", content: "hi" }]);
    expect(provider).toMatchObject({ name: "openai", model: "gpt-6.2-sol" });
    expect(fake.requests[0]?.path).toBe("/v1/responses");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-oai");
  });
});
