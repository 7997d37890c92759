// Scheduled prompts for real: the built CLI's REPL in a pseudo-terminal against the fake
// Anthropic server, with real time. /loop makes a job without a request, the job fires while
// the person is away, /loop stop ends it, a failed request is sent again once without a second
// copy of the prompt, and a durable job made with cron_create comes back with --continue.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  startFakeModel,
} from "./support/cli-harness.js";
import { httpError, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The text of each of the person's messages in the session file, in order. */
function prompts(sandbox: ReturnType<typeof freshSandbox>): string[] {
  return onlySession(sandbox).messages.flatMap((message) => {
    if (message.role !== "user") return [];
    if (typeof message.content === "string") return [message.content];
    const first = message.content[0];
    return first?.type === "text" ? [first.text] : [];
  });
}

describe("scheduled prompts in the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("/loop 2s fires twice while no one types, and not again after /loop stop all", async () => {
    model.script([reply(text("Build green, once.")), reply(text("Build green, twice."))]);
    const before = model.requestCount();
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    await terminal.enter("/loop 2s check the build", /Scheduled job [0-9a-f]{8}, every 2s/);
    expect(model.requestCount()).toBe(before);
    // The line after each answer says how many jobs the session has.
    await terminal.waitFor(/Build green, twice\.[\s\S]*· 1 scheduled job[\s\S]*› /);
    const stop = await terminal.enter("/loop stop all", /Stopped 1 scheduled job\./);
    expect(stop).toMatch(/◆ scheduled job [0-9a-f]{8} deleted/);
    await wait(3000);
    expect(model.requestCount()).toBe(before + 2);
    expect(await terminal.exit()).toBe(0);
    expect(prompts(sandbox)).toEqual(["check the build", "check the build"]);
    const fired = onlySession(sandbox).entries.filter(
      (entry) => entry.type === "part" && "name" in entry && entry.name === "job_fired",
    );
    expect(fired).toHaveLength(2);
  }, 40_000);

  it("sends a failed request again once, with the prompt in the history once", async () => {
    model.script([
      httpError(400, "invalid_request_error", "the fake model says no, once"),
      reply(text("Second try worked.")),
    ]);
    const before = model.requestCount();
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    await terminal.enter("/loop 1s look once", /Scheduled job/);
    await terminal.waitFor(/Second try worked\./);
    expect(await terminal.enter("/loop stop all", /Stopped 1 scheduled job\./)).toBeTruthy();
    expect(await terminal.exit()).toBe(0);
    const sent = model.requests().slice(before, before + 2);
    expect(sent).toHaveLength(2);
    const [failed, retried] = sent.map((request) => JSON.parse(request.body).messages);
    expect(retried).toEqual(failed);
    expect(prompts(sandbox)).toEqual(["look once"]);
  }, 40_000);

  it("brings a durable job back with --continue, and not a job /loop made", async () => {
    model.script([
      reply(
        toolUse("c1", "cron_create", {
          cron: "0 9 * * *",
          prompt: "morning report",
          durable: true,
        }),
      ),
      reply(text("Scheduled for 9:00.")),
    ]);
    const sandbox = freshSandbox();
    const env = { ...sandbox.env, ...model.env() };
    const first = await openRepl({ env, cwd: sandbox.workspace });
    await first.enter("every morning at nine, report", /Scheduled for 9:00\./);
    await first.enter("/loop 1h hourly look", /Scheduled job/);
    expect(await first.exit()).toBe(0);

    const second = await openRepl({ env, cwd: sandbox.workspace, args: ["--continue"] });
    const listed = await second.enter("/loop list", /1\. [0-9a-f]{8}/);
    expect(listed).toMatch(/cron "0 9 \* \* \*", durable · next .* · morning report/);
    expect(listed).not.toMatch(/hourly look/);
    expect(await second.exit()).toBe(0);
  }, 40_000);
});
