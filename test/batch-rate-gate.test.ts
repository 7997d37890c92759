// The rate gate between a batch's agents and the API: when the API says 429 to one agent, the
// others wait as long as it said, instead of each finding the limit on its own.

import { afterEach, describe, expect, it } from "vitest";
import { type RateGate, startRateGate } from "../src/batch/rate-gate.js";
import {
  type FakeAnthropic,
  httpError,
  reply,
  startFakeAnthropic,
  text,
} from "./support/fake-anthropic-server.js";

const body = JSON.stringify({
  model: "claude-sonnet-4-5",
  max_tokens: 100,
  stream: true,
  messages: [{ role: "user", content: "hello" }],
});

function send(gate: RateGate): Promise<Response> {
  return fetch(`${gate.url}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-test",
      "anthropic-version": "2023-06-01",
    },
    body,
  });
}

describe("the rate gate", () => {
  let fake: FakeAnthropic;
  let gate: RateGate;
  afterEach(async () => {
    await gate.close();
    await fake.close();
  });

  it("passes requests and streamed answers through unchanged", async () => {
    fake = await startFakeAnthropic();
    fake.script([reply(text("hi there"))]);
    gate = await startRateGate({ upstream: fake.url });
    const answer = await send(gate);
    expect(answer.status).toBe(200);
    const stream = await answer.text();
    const deltas = [...stream.matchAll(/"text_delta","text":"([^"]*)"/g)].map((match) => match[1]);
    expect(deltas.join("")).toBe("hi there");
    expect(stream).toContain("event: message_stop");
    expect(fake.requests[0]?.headers["x-api-key"]).toBe("sk-test");
    expect(gate.held()).toBe(0);
  });

  it("holds every request back for the retry-after of a 429, then lets them through", async () => {
    fake = await startFakeAnthropic();
    fake.script([
      httpError(429, "rate_limit_error", "slow down", { "retry-after": "1" }),
      reply(text("second")),
    ]);
    const pauses: number[] = [];
    gate = await startRateGate({ upstream: fake.url, onPause: (ms) => pauses.push(ms) });
    expect((await send(gate)).status).toBe(429);
    const second = await send(gate);
    expect(second.status).toBe(200);
    expect(pauses).toEqual([1000]);
    expect(gate.held()).toBe(1);
    const [limited, after] = fake.requests;
    expect((after?.receivedAt ?? 0) - (limited?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("keeps the upstream's path, so an OpenAI-style base URL with /v1 works", async () => {
    fake = await startFakeAnthropic();
    gate = await startRateGate({ upstream: `${fake.url}/v1/` });
    expect(gate.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });
});
