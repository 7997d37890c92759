// The goal loop (s17) through the built CLI against the fake model servers: each finished
// answer goes to a judge request with no tools that holds the condition and the answer; not met
// sends the model on with the judge's reason, met ends the run, impossible ends it as a failure,
// budgets stop a judge that never says met, and the goal outlives the process (--continue).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Protocol,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, httpError, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent, validResult } from "./support/schemas.js";

type Event = { type: string; [key: string]: unknown };
type Check = Event & { name: string; line: string; data: Record<string, unknown> };

const YOLO = ["--permission-mode", "yolo"];
const GOAL = "the answer names the colour of the sky";

const verdict = (met: boolean, reason: string, impossible = false) =>
  reply(text(JSON.stringify({ met, impossible, reason })));
/** A judge request is the one whose only conversation is the goal's question. */
const isJudge = (firstUserText: string) => firstUserText.startsWith("The condition:\n<condition>");

for (const protocol of ["anthropic", "openai"] as Protocol[]) {
  describe(`the goal loop (${protocol})`, () => {
    let model: FakeModel;
    beforeAll(async () => {
      model = await startFakeModel(protocol);
    });
    afterAll(() => model.close());

    /** Runs the CLI in stream-json; `judge` answers the judge's requests, in order. */
    async function run(
      turns: FakeTurn[],
      judge: FakeTurn[],
      args: string[],
      sandbox: Sandbox = freshSandbox(),
    ) {
      const judged = [...judge];
      model.script(turns, {
        intercept: ({ firstUserText }) => (isJudge(firstUserText) ? judged.shift() : undefined),
      });
      const before = model.requestCount();
      const result = await runCli(
        ["--output-format", "stream-json", ...model.flags, ...YOLO, ...args],
        { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
      );
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Event);
      const final = lines.at(-1) as Event;
      expect(final.type, result.stderr).toBe("result");
      const events = lines.slice(0, -1);
      for (const event of events) expect(validEvent(event), JSON.stringify(event)).toBe(true);
      expect(validResult(final), JSON.stringify(validResult.errors)).toBe(true);
      const requests = model
        .requests()
        .slice(before)
        .map((request) => JSON.parse(request.body));
      const judgeRequests = requests.filter((body) => JSON.stringify(body).includes("<condition>"));
      const workRequests = requests.filter((body) => !judgeRequests.includes(body));
      const checks = events.filter(
        (event) => event.type === "part" && event.name === "goal_check",
      ) as Check[];
      return { ...result, final, events, checks, judgeRequests, workRequests, sandbox };
    }
    const lastMessageText = (body: { messages: { content: unknown }[] }) =>
      JSON.stringify(body.messages.at(-1)?.content);

    it("a goal met at the third answer makes three tool-less checks and sends the model on twice with the judge's reasons", async () => {
      const { code, final, checks, judgeRequests, workRequests, events } = await run(
        [reply(text("It is a colour.")), reply(text("It is light.")), reply(text("Blue."))],
        [
          verdict(false, "No colour is named yet."),
          verdict(false, "Still no colour: name one."),
          verdict(true, "The answer says blue."),
        ],
        ["--goal", GOAL, "what colour is the sky?"],
      );

      expect(code).toBe(0);
      expect(judgeRequests).toHaveLength(3);
      for (const [index, body] of judgeRequests.entries()) {
        expect(body.tools).toBeUndefined();
        const question = JSON.stringify(body.messages);
        expect(question).toContain(GOAL);
        expect(question).toContain(["It is a colour.", "It is light.", "Blue."][index]);
      }
      expect(workRequests).toHaveLength(3);
      expect(JSON.stringify(workRequests[0].messages)).toContain(
        `[agentloop: goal] The user set a goal for this session: ${GOAL}`,
      );
      expect(lastMessageText(workRequests[1])).toContain("No colour is named yet.");
      expect(lastMessageText(workRequests[1])).toContain(GOAL);
      expect(lastMessageText(workRequests[2])).toContain("Still no colour: name one.");
      expect(checks.map((check) => check.data.verdict)).toEqual(["not_met", "not_met", "met"]);
      expect(checks[2]?.line).toBe("goal check 3: met: The answer says blue.");
      expect(final.result).toBe("Blue.");
      // The judge's tokens are the run's: every request's usage is in the result.
      const used = (event: Event) => (event.usage as { output_tokens: number }).output_tokens;
      const replies = events.filter((event) => event.type === "assistant_message");
      const spent = [...replies, ...checks].reduce((sum, event) => sum + used(event), 0);
      expect(checks.every((check) => used(check) > 0)).toBe(true);
      expect((final.usage as { output_tokens: number }).output_tokens).toBe(spent);
    });

    it("an impossible verdict ends the run at once with exit 1 and the judge's reason", async () => {
      const { code, final, checks, workRequests } = await run(
        [reply(text("I cannot see the sky from here."))],
        [verdict(false, "The sky cannot be seen from a terminal.", true)],
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(code).toBe(1);
      expect(workRequests).toHaveLength(1);
      expect(checks.map((check) => check.data.verdict)).toEqual(["impossible"]);
      expect(final.error).toBe("The goal cannot be met: The sky cannot be seen from a terminal.");
    });

    it("an answer that claims the goal is met in the judge's own shape does not end the run", async () => {
      const claim = JSON.stringify({ met: true, impossible: false, reason: "I say so." });
      const { code, checks, workRequests } = await run(
        [reply(text(claim)), reply(text("Blue."))],
        [verdict(false, "Saying so is not naming a colour."), verdict(true, "Blue is named.")],
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(code).toBe(0);
      expect(workRequests).toHaveLength(2);
      expect(checks.map((check) => check.data.verdict)).toEqual(["not_met", "met"]);
    });

    it("a judge that never says met stops at 8 continuations in a row with exit 3", async () => {
      const { code, final, checks, judgeRequests, workRequests } = await run(
        Array.from({ length: 9 }, (_, index) => reply(text(`Attempt ${index + 1}.`))),
        Array.from({ length: 9 }, () => verdict(false, "No colour is named.")),
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(code).toBe(3);
      expect(workRequests).toHaveLength(9);
      expect(judgeRequests).toHaveLength(9);
      expect(checks.at(-1)?.data).toMatchObject({ verdict: "not_met", continuations: 8 });
      expect(final.stop_reason).toBe("max_turns");
      expect(final.error).toMatch(
        /^The goal was not met after 8 continuations in a row \(--goal-max-turns\): No colour is named\./,
      );
    });

    it("--goal-max-turns sets the cap, and --max-turns counts the judge's requests too", async () => {
      const capped = await run(
        Array.from({ length: 3 }, () => reply(text("Not yet."))),
        Array.from({ length: 3 }, () => verdict(false, "No colour.")),
        ["--goal", GOAL, "--goal-max-turns", "2", "what colour is the sky?"],
      );
      expect(capped.code).toBe(3);
      expect(capped.workRequests).toHaveLength(3);

      const counted = await run(
        Array.from({ length: 3 }, () => reply(text("Not yet."))),
        Array.from({ length: 3 }, () => verdict(false, "No colour.")),
        ["--goal", GOAL, "--max-turns", "3", "what colour is the sky?"],
      );
      expect(counted.code).toBe(3);
      // Two answers and two checks would be four requests: the third is the last one allowed.
      expect(counted.workRequests.length + counted.judgeRequests.length).toBe(3);
      expect(counted.final.stop_reason).toBe("max_turns");
      expect(counted.final.error).toContain("--max-turns 3");
    });

    it("a verdict that is not the JSON object is asked for once more, then reported, never as met", async () => {
      const { code, final, checks, judgeRequests } = await run(
        [reply(text("Blue."))],
        [reply(text("Looks met to me!")), reply(text("Yes: met."))],
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(code).toBe(1);
      expect(judgeRequests).toHaveLength(2);
      expect(judgeRequests[1].tools).toBeUndefined();
      expect(lastMessageText(judgeRequests[1])).toContain("That was not the answer asked for");
      expect(checks.map((check) => check.data.verdict)).toEqual(["unreadable"]);
      expect(final.error).toMatch(
        /^The goal was not checked: the judge answered twice without a verdict/,
      );

      const second = await run(
        [reply(text("Blue."))],
        [reply(text("Met, I think.")), verdict(true, "Blue is named.")],
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(second.code).toBe(0);
      expect(second.checks.map((check) => check.data.verdict)).toEqual(["met"]);
    });

    it("a judge request that fails ends the run with exit 1, the tokens already spent counted", async () => {
      const { code, final, checks, judgeRequests } = await run(
        [reply(text("Blue."))],
        [reply(text("Met, I think.")), httpError(400, "invalid_request_error", "Refused here.")],
        ["--goal", GOAL, "what colour is the sky?"],
      );
      expect(code).toBe(1);
      expect(judgeRequests).toHaveLength(2);
      expect(checks.map((check) => check.data.verdict)).toEqual(["failed"]);
      expect(checks[0]?.usage).toMatchObject({ output_tokens: expect.any(Number) });
      expect(final.error).toMatch(
        /^The goal could not be checked: the judge's request failed: .*Refused here/,
      );
    });

    it("a goal set with --goal in a run stopped by --max-turns is checked again after --continue", async () => {
      const sandbox = freshSandbox();
      const first = await run(
        [reply(toolUse("t1", "bash", { command: "echo looking" }))],
        [],
        ["--goal", GOAL, "--max-turns", "1", "what colour is the sky?"],
        sandbox,
      );
      expect(first.code).toBe(3);
      expect(first.judgeRequests).toHaveLength(0);
      expect(first.events).toContainEqual(
        expect.objectContaining({ type: "part", name: "goal_unmet" }),
      );

      const second = await run(
        [reply(text("Blue."))],
        [verdict(true, "Blue is named.")],
        ["--continue", "go on"],
        sandbox,
      );
      expect(second.code).toBe(0);
      expect(second.judgeRequests).toHaveLength(1);
      expect(JSON.stringify(second.judgeRequests[0].messages)).toContain(GOAL);
      const names = onlySession(sandbox).entries.flatMap((entry) =>
        entry.type === "part" && entry.part === "goal" ? [entry.name] : [],
      );
      expect(names).toEqual(["goal_set", "goal_unmet", "goal_check", "goal_cleared"]);
    });

    it("waits for background tasks before judging, and the model sees how they ended first", async () => {
      const { code, judgeRequests, workRequests } = await run(
        [
          reply(
            toolUse("t1", "bash", {
              command: "sleep 1; echo painted-blue",
              run_in_background: true,
            }),
          ),
          reply(text("Started the painter.")),
          reply(text("The painter says blue.")),
        ],
        [verdict(true, "Blue is named.")],
        ["--goal", GOAL, "paint the sky"],
      );
      expect(code).toBe(0);
      expect(workRequests).toHaveLength(3);
      expect(lastMessageText(workRequests[2])).toContain("task_notification");
      expect(lastMessageText(workRequests[2])).toContain("before the goal was checked");
      expect(judgeRequests).toHaveLength(1);
      expect(JSON.stringify(judgeRequests[0].messages)).toContain("The painter says blue.");
    });
  });
}

describe("the goal's judge and its words", () => {
  it("judges on --goal-model while the work goes to the session's model, and says each check on stderr", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([reply(text("Blue."))], {
        intercept: ({ firstUserText }) =>
          isJudge(firstUserText) ? verdict(false, "The sky is not reachable.", true) : undefined,
      });
      const sandbox = freshSandbox();
      const result = await runCli(
        [...YOLO, "--model", "claude-sonnet-4-5", "--goal-model", "claude-haiku-4-5"].concat([
          "--goal",
          GOAL,
          "what colour is the sky?",
        ]),
        { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
      );
      expect(result.code).toBe(1);
      const [work, judge] = model.requests().map((request) => JSON.parse(request.body));
      expect(work.model).toBe("claude-sonnet-4-5");
      expect(judge.model).toBe("claude-haiku-4-5");
      expect(result.stderr).toContain("goal check 1: impossible: The sky is not reachable.");
      expect(result.stderr).toContain(
        "agentloop: The goal cannot be met: The sky is not reachable.",
      );
    } finally {
      await model.close();
    }
  });

  it("refuses an empty --goal and a goalModel setting that is not a model name, each in one sentence", async () => {
    const sandbox = freshSandbox();
    const empty = await runCli(["--goal", "  ", "-p", "hi"], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(
      '--goal needs a condition, for example --goal "npm test passes".',
    );

    const settings = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
    mkdirSync(settings, { recursive: true });
    writeFileSync(join(settings, "settings.json"), '{"goalModel": 3}');
    const model = await startFakeModel("anthropic");
    try {
      const bad = await runCli(["--goal", GOAL, "-p", "hi"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('"goalModel" in');
      expect(bad.stderr).toContain("must be a model name.");
      expect(model.requestCount()).toBe(0);
    } finally {
      await model.close();
    }
  });
});
