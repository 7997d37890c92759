// Scheduled prompts (src/schedule/) with a clock the test moves: cron expressions in local time,
// one fire per slot while idle, one fire when a busy session becomes idle, one re-delivery of a
// failed request, the 7-day expiry, the 50-job cap, the jitter, and durable jobs coming back.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { LoopEvent, LoopStop } from "../src/core/events.js";
import type { PartHost, QueuedOutcome, QueuedPrompt } from "../src/core/part.js";
import { nextMatch, parseCron } from "../src/schedule/cron.js";
import { type Job, jitterMs } from "../src/schedule/jobs.js";
import { createSchedulePart } from "../src/schedule/part.js";
import type { Clock } from "../src/schedule/scheduler.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

/** A clock whose time moves only when the test says, firing the timers that came due. */
function manualClock(start = new Date(2026, 11, 7, 10, 0, 0).getTime()): Clock & {
  advance(ms: number): void;
} {
  let now = start;
  let timers: { at: number; fire: () => void }[] = [];
  return {
    now: () => now,
    setTimer(fire, ms) {
      const timer = { at: now + ms, fire };
      timers.push(timer);
      return () => {
        timers = timers.filter((each) => each !== timer);
      };
    },
    advance(ms) {
      const end = now + ms;
      while (true) {
        const due = timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((timer) => timer !== due);
        now = Math.max(now, due.at);
        due.fire();
      }
      now = end;
    },
  };
}

const stopped = (reason: LoopStop["reason"]): QueuedOutcome => ({
  ran: true,
  stop: { type: "stop", reason, detail: "", finalText: "" },
});

/** The host a front end gives: it records the queued prompts, which the test settles. */
function fakeHost(directory: string) {
  const queued: { prompt: QueuedPrompt; settle(outcome: QueuedOutcome): void }[] = [];
  const events: LoopEvent[] = [];
  let idle = true;
  const host = {
    queuePrompt: (prompt: QueuedPrompt) =>
      new Promise<QueuedOutcome>((settle) => queued.push({ prompt, settle })),
    runsQueuedPrompts: () => "when-idle" as const,
    isIdle: () => idle,
    announce: (more: LoopEvent[]) => events.push(...more),
    directory: () => directory,
  } as unknown as PartHost;
  return {
    host,
    queued,
    events,
    names: () => events.flatMap((event) => (event.type === "part" ? [event.name] : [])),
    setIdle(value: boolean) {
      idle = value;
    },
  };
}

/** Lets the outcome's callbacks run. */
const settled = () => new Promise((done) => setTimeout(done, 0));

function startPart(clock = manualClock()) {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-schedule-"));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const part = createSchedulePart({ clock });
  const front = fakeHost(directory);
  part.attach?.(front.host);
  const loop = part.commands?.find((command) => command.name === "/loop");
  if (!loop) throw new Error("no /loop");
  return { part, clock, loop, directory, ...front };
}

describe("cron expressions", () => {
  it("find the next matching minute in local time", () => {
    const at = (month: number, day: number, hour: number, minute: number) =>
      new Date(2026, month - 1, day, hour, minute).getTime();
    const weekdays = parseCron("*/15 9-17 * * 1-5");
    // Saturday 5 December 2026, 18:00: the next match is Monday at 9:00.
    expect(nextMatch(weekdays, at(12, 5, 18, 0))).toBe(at(12, 7, 9, 0));
    expect(nextMatch(weekdays, at(12, 7, 9, 0))).toBe(at(12, 7, 9, 15));
    expect(nextMatch(parseCron("30 14 28 2 *"), at(12, 7, 9, 0))).toBe(
      new Date(2027, 1, 28, 14, 30).getTime(),
    );
    // Both day fields restricted: either one matches (the 1st, or a Sunday).
    expect(nextMatch(parseCron("0 0 1 * 0"), at(12, 7, 9, 0))).toBe(at(12, 13, 0, 0));
    expect(nextMatch(parseCron("0 0 * * 7"), at(12, 7, 9, 0))).toBe(at(12, 13, 0, 0));
  });

  it("say in one sentence what is wrong with a bad one", () => {
    expect(() => parseCron("* * * *")).toThrow(/needs five fields/);
    expect(() => parseCron("61 * * * *")).toThrow(/minute field "61" is outside 0-59/);
    expect(() => parseCron("*/0 * * * *")).toThrow(/step that is not a whole number/);
    expect(() => parseCron("a * * * *")).toThrow(/not a number, a range or \*/);
  });
});

describe("/loop", () => {
  it("makes the job itself, every 10 minutes when no interval is given, without a request", async () => {
    const { loop, part, queued, names } = startPart();
    const said = await loop.run("5m check the build");
    expect(said).toMatch(/^Scheduled job [0-9a-f]{8}, every 5m: it runs when the session is idle/);
    expect(await loop.run("check the tests")).toMatch(/every 10m \(no interval given: 10m\)/);
    expect(queued).toEqual([]);
    expect(names()).toEqual(["job_created", "job_created"]);
    const listed = await loop.run("list");
    expect(listed).toMatch(/1\. [0-9a-f]{8} · every 5m · next .* · check the build/);
    expect(listed).toMatch(/2\. [0-9a-f]{8} · every 10m · next .* · check the tests/);
    expect(await loop.run("stop 1")).toMatch(/^Stopped scheduled job/);
    expect(await loop.run("stop all")).toBe("Stopped 1 scheduled job.");
    expect(await loop.run("list")).toMatch(/^No scheduled jobs/);
    expect(() => loop.run("stop 3")).toThrow(/No scheduled job 3/);
    expect(() => loop.run("5m")).toThrow(/Say what to run/);
    part.close?.();
  });
});

describe("a scheduled job", () => {
  it("fires once per slot while the session is idle", async () => {
    const { loop, clock, queued, names } = startPart();
    await loop.run("1m look");
    clock.advance(59 * SECOND);
    expect(queued).toHaveLength(0);
    // The slot is a minute after it was made, plus at most a tenth of the period.
    clock.advance(7 * SECOND);
    expect(queued.map((each) => each.prompt)).toEqual([{ text: "look", again: false }]);
    // Still running: the timer going off again queues nothing more.
    clock.advance(10 * SECOND);
    expect(queued).toHaveLength(1);
    queued[0]?.settle(stopped("end_turn"));
    await settled();
    expect(names()).toEqual(["job_created", "job_fired"]);
    clock.advance(30 * SECOND);
    expect(queued).toHaveLength(1);
    clock.advance(30 * SECOND);
    expect(queued).toHaveLength(2);
  });

  it("fires once when a session busy through several slots becomes idle, then waits for the next slot", async () => {
    const { loop, part, clock, queued, setIdle } = startPart();
    await loop.run("1m look");
    setIdle(false);
    clock.advance(5 * MINUTE + 10 * SECOND);
    expect(queued).toHaveLength(0);
    setIdle(true);
    part.idle?.();
    part.idle?.();
    expect(queued).toHaveLength(1);
    queued[0]?.settle(stopped("end_turn"));
    await settled();
    part.idle?.();
    expect(queued).toHaveLength(1);
    clock.advance(MINUTE);
    expect(queued).toHaveLength(2);
  });

  it("sends a failed request again once, going on from the prompt in the history, then waits for the next slot", async () => {
    const { loop, clock, queued, names } = startPart();
    await loop.run("1m look");
    clock.advance(MINUTE + 10 * SECOND);
    queued[0]?.settle(stopped("error"));
    await settled();
    expect(queued.map((each) => each.prompt)).toEqual([
      { text: "look", again: false },
      { text: "look", again: true },
    ]);
    queued[1]?.settle(stopped("error"));
    await settled();
    expect(queued).toHaveLength(2);
    expect(names()).toEqual(["job_created", "job_failed"]);
    clock.advance(MINUTE);
    expect(queued.at(-1)?.prompt).toEqual({ text: "look", again: false });
  });

  it("counts a fire whose re-delivery succeeded", async () => {
    const { loop, clock, queued, names } = startPart();
    await loop.run("1m look");
    clock.advance(MINUTE + 10 * SECOND);
    queued[0]?.settle(stopped("error"));
    await settled();
    queued[1]?.settle(stopped("end_turn"));
    await settled();
    expect(names()).toEqual(["job_created", "job_fired"]);
  });

  it("expires 7 days after it was made, and a session has at most 50", async () => {
    const { loop, clock, queued, names } = startPart();
    await loop.run("1d daily");
    // Past the jitter (at most 15 minutes), then a day at a time: one fire each.
    clock.advance(15 * MINUTE);
    for (let day = 1; day <= 7; day++) {
      clock.advance(DAY);
      queued.at(-1)?.settle(stopped("end_turn"));
      await settled();
    }
    expect(queued).toHaveLength(7);
    expect(names().slice(-2)).toEqual(["job_fired", "job_expired"]);
    expect(await loop.run("list")).toMatch(/^No scheduled jobs/);

    for (let made = 0; made < 50; made++) await loop.run(`${made + 1}m job ${made}`);
    expect(() => loop.run("5m one more")).toThrow(/has 50 scheduled jobs, the most it may have/);
  });

  it("has a jitter of its own, the same at every slot, at most a tenth of its period", () => {
    const job = (id: string): Job => ({
      id,
      prompt: "p",
      recurring: true,
      durable: false,
      createdAt: 0,
      timing: { everyMs: 10 * MINUTE },
    });
    expect(jitterMs(job("80000000"), 10 * MINUTE)).toBe(30 * SECOND);
    expect(jitterMs(job("80000000"), 20 * MINUTE)).toBe(30 * SECOND);
    expect(jitterMs(job("00000000"), 10 * MINUTE)).toBe(0);
    expect(jitterMs(job("ffffffff"), 10 * MINUTE)).toBeLessThan(MINUTE);
    expect(jitterMs({ ...job("ffffffff"), recurring: false }, 10 * MINUTE)).toBe(0);
  });

  it("comes back in a resumed session when durable, without catching up the slots it missed", async () => {
    const first = startPart();
    const tools = first.part.tools?.({ mode: "auto", forChild: false }) ?? [];
    const create = tools.find((tool) => tool.name === "cron_create");
    const made = await create?.run(
      { cron: "*/5 * * * *", prompt: "durable look", durable: true },
      { signal: new AbortController().signal },
    );
    expect(made?.isError).toBe(false);
    await first.loop.run("1m not kept");

    const clock = manualClock(first.clock.now() + 2 * 60 * MINUTE);
    const second = createSchedulePart({ clock });
    const front = fakeHost(first.directory);
    second.attach?.(front.host);
    second.historyStarted?.("resume", []);
    const jobs = second.scheduler.list();
    expect(jobs.map(({ job }) => job.prompt)).toEqual(["durable look"]);
    expect(jobs[0]?.fireAt).toBeGreaterThan(clock.now());
    second.idle?.();
    expect(front.queued).toHaveLength(0);
    clock.advance(5 * MINUTE + 31 * SECOND);
    expect(front.queued.map((each) => each.prompt.text)).toEqual(["durable look"]);
  });
});
