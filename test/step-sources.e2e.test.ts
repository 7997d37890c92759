// Which build wrote a session: its header records the version and the id of the step sources
// the build carries (src/core/build-info.ts), so the viewer can tell whether the code it shows
// is the code that ran.

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStepSources } from "../scripts/step-sources.mjs";
import { AGENTLOOP_BUILD } from "../src/core/build-info.js";
import { parseSession } from "../src/session/session-file.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

const REPO = resolve(import.meta.dirname, "..");
const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  version: string;
};

describe("which build wrote a session", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("is recorded in the header by the built CLI, a subagent's transcript's too: its version and its step sources' id", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(toolUse("call_a1", "agent", { description: "look", prompt: "Look around." })),
      reply(text("Nothing here.")),
      reply(text("Done.")),
    ]);
    const { code } = await runCli(["-p", "look around"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(code).toBe(0);
    const build = { version, source: collectStepSources(REPO).id };
    const session = onlySession(sandbox);
    expect(session.header?.agentloop).toEqual(build);
    const link = session.entries.find((entry) => entry.type === "subagent");
    if (link?.type !== "subagent") throw new Error("the agent tool recorded no subagent run");
    const child = parseSession(readFileSync(join(dirname(session.path), link.transcript), "utf8"));
    expect(child.header?.agentloop).toEqual(build);
  });

  it("is a development build with no source id when agentloop runs from source", () => {
    expect(AGENTLOOP_BUILD).toEqual({ version: "development", source: null });
  });

  it("may be missing from an older session's header, which still reads", () => {
    const older = { type: "session", version: 1, id: "s", cwd: "/w", model: "m", provider: "p" };
    const contents = parseSession(`${JSON.stringify({ ...older, startedAt: "x" })}\n`);
    expect(contents.problems).toEqual([]);
    expect(contents.header?.id).toBe("s");
    expect(contents.header?.agentloop).toBeUndefined();
  });
});
