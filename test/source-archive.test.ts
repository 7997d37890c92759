import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StepSources } from "../src/core/step-sources.js";
import {
  archivedSourcesPath,
  archivedStepSources,
  archiveStepSources,
} from "../src/session/source-archive.js";

function table(note: string): StepSources {
  const sources = {
    "loop.reply": {
      key: "loop.reply",
      note,
      file: "src/loop.ts",
      line: 2,
      functionName: "runOneTurn",
      firstLine: 1,
      lines: ["{", "  state.messages.push(reply.message);", "}"],
    },
  };
  const id = createHash("sha256").update(JSON.stringify(sources)).digest("hex").slice(0, 12);
  return { id, version: "0.0.9", sources };
}

function sessionsWith(kept: StepSources | string, id: string): string {
  const sessions = mkdtempSync(join(tmpdir(), "agentloop-sources-"));
  mkdirSync(join(sessions, "sources"));
  const text = typeof kept === "string" ? kept : JSON.stringify(kept);
  writeFileSync(archivedSourcesPath(sessions, id), text);
  return sessions;
}

describe("the step sources kept beside the sessions", () => {
  it("are read back whole when their id is the hash of their excerpts", () => {
    const kept = table("The reply joins messages[].");
    expect(archivedStepSources(sessionsWith(kept, kept.id), kept.id)).toEqual(kept);
  });

  it("are not trusted once changed: an excerpt edited by hand no longer matches the id", () => {
    const kept = table("The reply joins messages[].");
    const edited = { ...kept, sources: table("Something else.").sources };
    expect(archivedStepSources(sessionsWith(edited, kept.id), kept.id)).toBeNull();
  });

  it("are not read from a damaged file, nor for an id that is not one", () => {
    const kept = table("The reply joins messages[].");
    expect(archivedStepSources(sessionsWith("{ cut off", kept.id), kept.id)).toBeNull();
    const wrongShape = { ...kept, sources: { "loop.reply": { key: "loop.reply" } } };
    expect(archivedStepSources(sessionsWith(wrongShape as never, kept.id), kept.id)).toBeNull();
    const sessions = sessionsWith(kept, kept.id);
    expect(archivedStepSources(sessions, "../../etc/passwd")).toBeNull();
  });

  it("are not kept by agentloop run from source, which has no source id", async () => {
    const sessions = mkdtempSync(join(tmpdir(), "agentloop-sources-"));
    await archiveStepSources(sessions);
    expect(readdirSync(sessions)).toEqual([]);
  });
});
