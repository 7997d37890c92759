// Long tasks through the built CLI against fake servers that enforce a context window with the
// real APIs' error bodies: the task completes, every command's output reaches the model whole,
// and a compacted session resumes into a conversation the server accepts.

import { describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Protocol,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent } from "./support/schemas.js";

const SUMMARY_REQUEST = "[agentloop] The conversation has grown too long";

/** A command printing about 25 KB of build log, then a line that names it. */
const noisyStep = (k: number) =>
  `yes "build log line of step ${k}: compiling the module and linking it" | head -c 25000; echo; echo END-OF-STEP-${k}`;

function noisyTask(steps: number): FakeTurn[] {
  const turns: FakeTurn[] = [];
  for (let k = 1; k <= steps; k += 1) {
    turns.push(reply(toolUse(`toolu_${k}`, "bash", { command: noisyStep(k) })));
  }
  turns.push(reply(text(`All ${steps} steps are built.`)));
  return turns;
}

/** Summary requests are answered whenever they come, outside the script. */
const answerSummaries = {
  intercept: ({ lastUserText }: { lastUserText: string }) =>
    lastUserText.includes(SUMMARY_REQUEST)
      ? reply(text("Steps are being built one by one."))
      : undefined,
};

async function runTask(model: FakeModel, sandbox: Sandbox, args: string[]) {
  const run = await runCli([...model.flags, "--output-format", "stream-json", ...args], {
    env: { ...sandbox.env, ...model.env() },
    cwd: sandbox.workspace,
  });
  const events = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
  // Every event, compactions included, fits the schema scripts rely on.
  for (const event of events.slice(0, -1)) {
    expect(validEvent(event), JSON.stringify(validEvent.errors)).toBe(true);
  }
  return { ...run, events };
}

/** The request that followed step k carries its whole output. */
function deliveredWhole(model: FakeModel, k: number): boolean {
  return model.requests().some((request) => {
    const at = request.body.indexOf(`END-OF-STEP-${k}\\n`);
    if (at === -1 || request.refused) return false;
    const start = request.body.indexOf(`build log line of step ${k}:`);
    return start !== -1 && at - start > 24_000;
  });
}

describe.each<Protocol>(["anthropic", "openai", "responses"])(
  "a long task with the %s protocol",
  (protocol) => {
    it("70 commands of 25 KB each under a 200,000-token window: done, nothing refused", async () => {
      const model = await startFakeModel(protocol, { contextWindow: 200_000 });
      try {
        model.script(noisyTask(70), answerSummaries);
        const sandbox = freshSandbox();
        const { code, events, stderr } = await runTask(model, sandbox, [
          "--context-window",
          "200000",
          "build every step",
        ]);
        expect(stderr).not.toMatch(/too long/);
        expect(code).toBe(0);
        expect(model.requests().some((request) => request.refused)).toBe(false);
        for (let k = 1; k <= 70; k += 1) expect(deliveredWhole(model, k)).toBe(true);
        expect(events.filter((event) => event.type === "compaction").length).toBeGreaterThan(0);
        expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
      } finally {
        await model.close();
      }
    }, 120_000);

    it("a 40,000-token window it was not told about: learnt from the error, then done", async () => {
      const model = await startFakeModel(protocol, { contextWindow: 40_000 });
      try {
        model.script(noisyTask(20), answerSummaries);
        const sandbox = freshSandbox();
        const { code, events } = await runTask(model, sandbox, ["build every step"]);
        expect(code).toBe(0);
        // On the Messages API the first request asks for 50,000 output tokens (a quarter of the
        // model's 200,000-token window), which do not fit beside a 40,000-token window either:
        // that refusal teaches the provider how much room a reply has. The second is the history
        // growing too long. The Responses API turns it away inside a stream begun with a 200.
        const refusals = { anthropic: [400, 400], openai: [400], responses: [200] }[protocol];
        const refused = model.requests().filter((request) => request.refused);
        expect(refused.map((request) => request.status)).toEqual(refusals);
        // Chat Completions servers name the window; the Responses API's refusal names none,
        // so the window is taken as a little less than the request it refused.
        const learnt = events.find(
          (event) => event.type === "compaction" && event.trigger === "too_long",
        );
        if (protocol === "responses") {
          expect(learnt?.contextWindow).toBeLessThan(refused[0]?.tokens ?? 0);
        } else expect(learnt?.contextWindow).toBe(40_000);
        expect(events).toContainEqual(
          expect.objectContaining({ type: "turn_end", transitionReason: "compact_retry" }),
        );
        for (let k = 1; k <= 20; k += 1) expect(deliveredWhole(model, k)).toBe(true);

        // The resumed session goes on from the compacted history, and the server accepts it.
        model.script([reply(text("Still built."))], answerSummaries);
        const before = model.requestCount();
        const resumed = await runTask(model, sandbox, ["--continue", "is everything still built?"]);
        expect(resumed.code).toBe(0);
        expect(model.statuses().slice(before)).toEqual([200]);
        const sent = model.requests().at(-1)?.body ?? "";
        expect(sent).toContain("[agentloop cleared this result to save context");
        expect(sent).toContain("build every step");
        expect(
          onlySession(sandbox).messages.filter((m) => m.role === "user").length,
        ).toBeGreaterThan(20);
      } finally {
        await model.close();
      }
    }, 120_000);
  },
);

describe("kill -9 during a compaction", () => {
  it("resumes into a conversation the server accepts, and compacts again", async () => {
    // A window this small is a local model's, served over the OpenAI protocol.
    const model = await startFakeModel("openai", { contextWindow: 8_000 });
    try {
      // Results stay small; the model's own long text is what fills the window.
      const thinking = "Let me think about this step carefully before running it. ".repeat(30);
      const turns: FakeTurn[] = [];
      for (let k = 1; k <= 12; k += 1) {
        turns.push(
          reply(text(thinking), toolUse(`toolu_${k}`, "bash", { command: `echo step ${k}` })),
        );
      }
      turns.push(reply(text("Done.")));
      let summaryRequests = 0;
      model.script(turns, {
        intercept: ({ lastUserText }) => {
          if (!lastUserText.includes(SUMMARY_REQUEST)) return undefined;
          summaryRequests += 1;
          return { kind: "stall", content: [text("The steps so far")] };
        },
      });
      const sandbox = freshSandbox();
      const env = { ...sandbox.env, ...model.env() };
      const args = [...model.flags, "--permission-mode", "yolo", "--context-window", "8000"];
      const killed = await runCli([...args, "echo every step"], {
        env,
        cwd: sandbox.workspace,
        onSpawn: (child) => {
          const poll = setInterval(() => {
            if (summaryRequests === 0) return;
            clearInterval(poll);
            setTimeout(() => child.kill("SIGKILL"), 100);
          }, 20);
        },
      });
      expect(killed.code).toBeNull();
      expect(onlySession(sandbox).entries.some((entry) => entry.type === "compaction")).toBe(false);

      const rest = turns.slice(model.statuses().filter((status) => status === 200).length - 1);
      model.script(rest, answerSummaries);
      const before = model.requestCount();
      const resumed = await runCli([...args, "--output-format", "json", "--continue", "go on"], {
        env,
        cwd: sandbox.workspace,
      });
      expect(resumed.code).toBe(0);
      const sent = model.statuses().slice(before);
      expect(sent.every((status) => status === 200)).toBe(true);
      // The summary requests count among the run's requests and its tokens.
      expect(JSON.parse(resumed.stdout).num_turns).toBe(sent.length);
      const { entries } = onlySession(sandbox);
      expect(entries).toContainEqual(
        expect.objectContaining({ type: "compaction", kind: "summary" }),
      );
    } finally {
      await model.close();
    }
  }, 60_000);
});
