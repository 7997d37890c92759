// Memory across sessions (chapter s09) through the built CLI against the fake Anthropic server:
// off by default; on, what the memory tool saves is in the next new session's system prompt;
// secrets are redacted before writing; the extraction request's answer becomes entries (or waits
// in the inbox under "ask"); an index over budget is consolidated with a backup kept; and
// `agentloop memory` lists and forgets.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLIDATION_MARK } from "../src/memory/consolidation.js";
import type { MemoryEntry } from "../src/memory/entry.js";
import { EXTRACTION_MARK } from "../src/memory/extraction.js";
import { memoryDirectory, openMemoryStore } from "../src/memory/store.js";
import {
  type FakeModel,
  type FakeModelScriptOptions,
  freshSandbox,
  runCli,
  runStreamJson,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git, withRepository } from "./support/git-repository.js";
import { validEvent, validResult } from "./support/schemas.js";

const SECRET = "tok-7f3a9c2e81d4b6f0";

type Event = { type: string; part?: string; name?: string; line?: string; [key: string]: unknown };
type Body = { system?: unknown; tools?: { name: string }[]; messages: unknown[] };

function turnOnMemory(sandbox: Sandbox, value: unknown = true) {
  const directory = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "settings.json"), JSON.stringify({ memory: value }));
}

/** A fresh sandbox with memory turned on in the person's settings, and its store. */
function memoryOn(value: unknown = true) {
  const sandbox = freshSandbox();
  turnOnMemory(sandbox, value);
  return { sandbox, store: storeOf(sandbox) };
}

function storeOf(sandbox: Sandbox) {
  const directory = memoryDirectory(sandbox.workspace, sandbox.env);
  return openMemoryStore({ directory, cwd: sandbox.workspace, redact: (text) => text });
}

/** Every file under `directory`, with its text. */
function filesUnder(directory: string): { path: string; text: string }[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path, text: readFileSync(path, "utf8") };
    });
}

/** Answers the extraction request with `answer`; every other request follows the script. */
const extractionAnswers = (answer: string): FakeModelScriptOptions => ({
  intercept: ({ lastUserText }) =>
    lastUserText.startsWith(EXTRACTION_MARK) ? reply(text(answer)) : undefined,
});

describe("memory across sessions", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(
    sandbox: Sandbox,
    args: string[],
    turns: FakeTurn[],
    options: FakeModelScriptOptions = extractionAnswers("NOTHING"),
    env: Record<string, string> = {},
  ) {
    const ran = await runStreamJson(model, sandbox, turns, args, options, env);
    const events = ran.events as Event[];
    const bodies = ran.requests.map((request) => JSON.parse(request.body) as Body);
    return { ...ran.result, events, bodies };
  }

  const memoryEvents = (events: Event[]) => events.filter((event) => event.part === "memory");
  const systemOf = (body: Body | undefined) => JSON.stringify(body?.system ?? "");

  it("is off by default: no tool offered, no memory read or written, no extra request", async () => {
    const sandbox = freshSandbox();
    const seeded = await storeOf(sandbox).add("preferences", "The user likes pnpm.", {
      session: "earlier",
    });
    const before = filesUnder(storeOf(sandbox).directory);

    const { code, bodies, events } = await run(
      sandbox,
      ["-p", "I prefer tabs."],
      [reply(text("Noted."))],
    );

    expect(code).toBe(0);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.tools?.map((tool) => tool.name)).not.toContain("memory");
    expect(systemOf(bodies[0])).not.toContain(seeded.text);
    expect(systemOf(bodies[0])).not.toContain("Memory from earlier sessions");
    expect(memoryEvents(events)).toEqual([]);
    expect(filesUnder(storeOf(sandbox).directory)).toEqual(before);
  }, 30_000);

  it("puts what the memory tool saved in one session into the first request of the next", async () => {
    const sandbox = freshSandbox();
    const saved = "The user wants pnpm, never npm.";
    const first = await run(
      sandbox,
      ["--memory", "-p", "Use pnpm from now on."],
      [
        reply(toolUse("m1", "memory", { action: "add", topic: "preferences", text: saved })),
        reply(text("I will use pnpm.")),
      ],
    );
    expect(first.code).toBe(0);
    expect(first.bodies[0]?.tools?.map((tool) => tool.name)).toContain("memory");
    const remembered = memoryEvents(first.events).find((event) => event.name === "remembered");
    expect(remembered?.line).toContain(`Remembered: ${saved}`);
    const [entry] = storeOf(sandbox).entries();
    const sessionId = first.events.at(-1)?.session_id;
    expect(entry).toMatchObject({ topic: "preferences", text: saved, session: sessionId });
    expect(entry?.made).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // A new session (not continued), turned on in the settings this time.
    turnOnMemory(sandbox);
    const next = await run(sandbox, ["-p", "Install the dependencies."], [reply(text("Done."))]);
    expect(next.code).toBe(0);
    expect(systemOf(next.bodies[0])).toContain(saved);
    expect(systemOf(next.bodies[0])).toContain(`[${entry?.id}]`);
    expect(memoryEvents(next.events)[0]).toMatchObject({ name: "read" });
  }, 30_000);

  it("is one memory for a whole repository: saved in a subdirectory, read at the root and in a worktree", async () => {
    const { sandbox } = memoryOn();
    withRepository(sandbox);
    const subdirectory = join(sandbox.workspace, "packages", "app");
    mkdirSync(subdirectory, { recursive: true });
    const saved = "Releases are cut from the main branch only.";
    const first = await run(
      { ...sandbox, workspace: subdirectory },
      ["-p", "Remember how we release."],
      [
        reply(toolUse("m1", "memory", { action: "add", topic: "project", text: saved })),
        reply(text("Noted.")),
      ],
    );
    expect(first.code).toBe(0);

    const atRoot = await run(sandbox, ["-p", "How do we release?"], [reply(text("From main."))]);
    expect(systemOf(atRoot.bodies[0])).toContain(saved);
    const worktree = join(sandbox.home, "linked");
    git(sandbox.workspace, "worktree", "add", "--quiet", "--detach", worktree);
    const inWorktree = await run(
      { ...sandbox, workspace: worktree },
      ["-p", "How do we release?"],
      [reply(text("From main."))],
    );
    expect(systemOf(inWorktree.bodies[0])).toContain(saved);
    // Outside the repository it is another project's memory.
    const elsewhere = await run(
      { ...sandbox, workspace: sandbox.home },
      ["-p", "How do we release?"],
      [reply(text("I do not know."))],
    );
    expect(systemOf(elsewhere.bodies[0])).not.toContain(saved);
  }, 60_000);

  it("updates and forgets an entry by its id with the memory tool", async () => {
    const { sandbox, store } = memoryOn();
    const kept = await store.add("project", "Tests run with npm test.", { session: "s0" });
    const wrong = await store.add("project", "The build is make.", { session: "s0" });

    const { code, events } = await run(
      sandbox,
      ["-p", "Tests run with make check, and there is no make build."],
      [
        reply(
          toolUse("m1", "memory", {
            action: "update",
            id: kept.id,
            text: "Tests run with make check.",
          }),
          toolUse("m2", "memory", { action: "forget", id: wrong.id }),
        ),
        reply(text("Corrected.")),
      ],
    );

    expect(code).toBe(0);
    expect(store.entries()).toEqual([
      expect.objectContaining({ id: kept.id, text: "Tests run with make check." }),
    ]);
    expect(memoryEvents(events).map((event) => event.name)).toEqual([
      "read",
      "updated",
      "forgotten",
    ]);
  }, 30_000);

  it("stores a secret the model tried to save nowhere, and never sends it to a later session", async () => {
    const { sandbox } = memoryOn();
    const env = { DEPLOY_TOKEN: SECRET };
    const first = await run(
      sandbox,
      ["-p", "Remember how to deploy."],
      [
        reply(
          toolUse("m1", "memory", {
            action: "add",
            topic: "project",
            text: `Deploy with ./deploy.sh --token ${SECRET}`,
          }),
        ),
        reply(text("Saved.")),
      ],
      extractionAnswers(`REMEMBER project: the deploy token is ${SECRET}`),
      env,
    );

    expect(first.code).toBe(0);
    const toolEnd = first.events.find((event) => event.type === "tool_end");
    expect(JSON.stringify(toolEnd?.result)).toContain("A secret in it was replaced");
    const files = filesUnder(storeOf(sandbox).directory);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file.text, file.path).not.toContain(SECRET);
    expect(files.map((file) => file.text).join("\n")).toContain("[redacted:DEPLOY_TOKEN]");
    expect(JSON.stringify(memoryEvents(first.events))).not.toContain(SECRET);

    const next = await run(sandbox, ["-p", "Deploy."], [reply(text("Deployed."))], undefined, env);
    expect(next.code).toBe(0);
    for (const body of next.bodies) expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(systemOf(next.bodies[0])).toContain("./deploy.sh --token [redacted:DEPLOY_TOKEN]");
  }, 30_000);

  it("turns the extraction request's answer into entries at the end of a headless session", async () => {
    const { sandbox } = memoryOn();
    const answer = [
      "Here is what is worth keeping:",
      "REMEMBER preferences: The user prefers tabs over spaces.",
      "REMEMBER Project: The tests run with make check.",
      "REMEMBER not a topic!: dropped, its topic cannot be a file name",
    ].join("\n");

    const { code, events, bodies, stderr } = await run(
      sandbox,
      ["-p", "I prefer tabs over spaces; tests are make check. Say hi."],
      [reply(text("Hi."))],
      extractionAnswers(answer),
    );

    expect(code).toBe(0);
    expect(bodies).toHaveLength(2);
    const extraction = bodies[1] as Body;
    expect(extraction.tools ?? []).toEqual([]);
    expect(JSON.stringify(extraction.messages)).toContain("I prefer tabs over spaces");
    const texts = storeOf(sandbox)
      .entries()
      .map((entry) => `${entry.topic}: ${entry.text}`);
    expect(texts).toEqual([
      "preferences: The user prefers tabs over spaces.",
      "project: The tests run with make check.",
    ]);
    const written = memoryEvents(events).filter((event) => event.name === "remembered");
    expect(written.map((event) => (event.data as { by: string }).by)).toEqual([
      "at the end of the session",
      "at the end of the session",
    ]);
    // The result ends the stream and lists them; the person reading stderr sees them too.
    const result = events.at(-1);
    expect(validResult(result), JSON.stringify(validResult.errors)).toBe(true);
    for (const event of written) expect(validEvent(event), JSON.stringify(event)).toBe(true);
    expect(result?.part_events).toEqual(written);
    expect(stderr).toContain("Remembered: The user prefers tabs over spaces.");
  }, 30_000);

  it('keeps what is proposed in the inbox under "ask", until the person approves it', async () => {
    const { sandbox } = memoryOn("ask");
    const byTool = "The user signs every tag.";
    const byExtraction = "The user reviews diffs before commits.";
    const first = await run(
      sandbox,
      ["-p", "Sign the tags, and always show me the diff before committing."],
      [
        reply(toolUse("m1", "memory", { action: "add", topic: "preferences", text: byTool })),
        reply(text("I will.")),
      ],
      extractionAnswers(`REMEMBER preferences: ${byExtraction}`),
    );
    expect(first.code).toBe(0);
    expect(memoryEvents(first.events).map((event) => event.name)).toEqual([
      "read",
      "proposed",
      "proposed",
    ]);
    expect(storeOf(sandbox).entries()).toEqual([]);

    const notYet = await run(sandbox, ["-p", "hi"], [reply(text("Hi."))]);
    expect(systemOf(notYet.bodies[0])).not.toContain(byTool);
    expect(notYet.stderr).toContain("2 proposed memories wait for your yes");

    const inbox = openMemoryStore({
      directory: join(storeOf(sandbox).directory, "inbox"),
      cwd: sandbox.workspace,
      redact: (text) => text,
    });
    const [tool, extracted] = inbox.entries();
    const shell = (args: string[]) =>
      runCli(["memory", ...args], { env: sandbox.env, cwd: sandbox.workspace });
    expect(await shell(["approve", tool?.id ?? ""])).toMatchObject({
      code: 0,
      stdout: "Remembered 1 entry.\n",
    });
    expect(await shell(["reject", extracted?.id ?? ""])).toMatchObject({ code: 0 });
    expect(inbox.entries()).toEqual([]);
    const next = await run(sandbox, ["-p", "commit"], [reply(text("Here is the diff."))]);
    expect(systemOf(next.bodies[0])).toContain(byTool);
    expect(systemOf(next.bodies[0])).not.toContain(byExtraction);
  }, 40_000);

  it("lists and forgets from the shell: a forgotten entry is not in the next session's prompt", async () => {
    const { sandbox, store } = memoryOn();
    const stale = await store.add("project", "The API lives in server/.", { session: "s0" });
    const shell = (args: string[]) =>
      runCli(["memory", ...args], { env: sandbox.env, cwd: sandbox.workspace });

    const listed = await shell(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`[${stale.id}] The API lives in server/.`);
    expect(listed.stdout).toContain(store.indexPath);
    expect(await shell(["forget", stale.id])).toMatchObject({ code: 0 });
    expect(await shell(["forget"])).toMatchObject({ code: 2 });

    const next = await run(sandbox, ["-p", "Where is the API?"], [reply(text("In api/."))]);
    expect(systemOf(next.bodies[0])).toContain("Nothing is remembered yet.");
    expect(systemOf(next.bodies[0])).not.toContain("The API lives in server/.");
  }, 30_000);

  it("sends the first 200 lines of an index over budget, and consolidates it keeping a backup and the pinned entry", async () => {
    const { sandbox, store } = memoryOn();
    const many: MemoryEntry[] = Array.from({ length: 230 }, (_, n) => ({
      id: `m${String(n).padStart(6, "0")}`,
      topic: "project",
      text: `Fact number ${n} about the project.`,
      made: "2026-12-01T10:00:00Z",
      session: "s0",
      pinned: n === 229,
    }));
    await store.replaceAll(many);
    const merged = "Facts 0 to 228 say the project is large.";
    const { code, bodies, events } = await run(
      sandbox,
      ["-p", "Remember that the project is large."],
      [
        reply(toolUse("m1", "memory", { action: "add", topic: "project", text: "It is large." })),
        reply(text("Remembered.")),
      ],
      {
        intercept: ({ lastUserText }) => {
          if (lastUserText.startsWith(CONSOLIDATION_MARK)) {
            return reply(text(`KEEP m000001\nNEW project: ${merged}`));
          }
          return lastUserText.startsWith(EXTRACTION_MARK) ? reply(text("NOTHING")) : undefined;
        },
      },
    );

    expect(code).toBe(0);
    const system = systemOf(bodies[0]);
    expect(system).toContain("Fact number 0 about");
    expect(system).not.toContain("Fact number 229 about");
    expect(system).toMatch(/\(\d+ more lines of the index are not shown here/);
    const consolidation = bodies.find((body) =>
      JSON.stringify(body.messages).includes(CONSOLIDATION_MARK),
    );
    expect(consolidation?.tools ?? []).toEqual([]);
    expect(store.entries().map((entry) => entry.text)).toEqual([
      "Fact number 1 about the project.",
      "Fact number 229 about the project.",
      merged,
    ]);
    const backup = readFileSync(join(store.directory, "backup", "MEMORY.md"), "utf8");
    expect(backup).toContain("Fact number 228 about");
    expect(backup).toContain("It is large.");
    const consolidated = memoryEvents(events).find((event) => event.name === "consolidated");
    expect(consolidated?.line).toContain("231 entries to 3");
  }, 30_000);
});
