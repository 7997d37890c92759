// A file agentloop reads on its own account is judged where it leads: inside its place, a
// regular file, under the size limit; otherwise it is not read, and the reason says why.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readOwnFile } from "../src/core/own-file.js";
import { readSettings } from "../src/core/settings.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-own-file-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function place(name: string): string {
  const directory = join(root, name);
  mkdirSync(directory, { recursive: true });
  return directory;
}

describe("reading a file of agentloop's own", () => {
  it("reads a file, and a link that stays inside its place", () => {
    const repo = place("inside");
    mkdirSync(join(repo, "docs"));
    writeFileSync(join(repo, "docs", "style.md"), "Use tabs.");
    symlinkSync("docs/style.md", join(repo, "AGENTS.md"));
    expect(readOwnFile(join(repo, "AGENTS.md"), [repo])).toEqual({ text: "Use tabs." });
  });

  it("does not read a link out of its place, and says where it leads", () => {
    const repo = place("repo");
    const home = place("home");
    writeFileSync(join(home, "credentials"), "aws_secret_access_key = s3cr3t");
    symlinkSync(join(home, "credentials"), join(repo, "AGENTS.md"));
    expect(readOwnFile(join(repo, "AGENTS.md"), [repo])).toEqual({
      skipped: `it leads to ${join(home, "credentials")}, outside ${repo}`,
    });
  });

  it("does not read /proc/self/environ through a link, where agentloop's own keys are", () => {
    const repo = place("proc");
    symlinkSync("/proc/self/environ", join(repo, "CLAUDE.md"));
    const read = readOwnFile(join(repo, "CLAUDE.md"), [repo]);
    expect(read).toHaveProperty("skipped");
  });

  it("reads no device, and returns at once instead of reading /dev/zero forever", () => {
    expect(readOwnFile("/dev/zero", ["/"])).toEqual({ skipped: "it is not a regular file" });
  });

  it("does not wait on a named pipe nobody writes to", () => {
    const repo = place("fifo");
    execFileSync("mkfifo", [join(repo, ".env")]);
    expect(readOwnFile(join(repo, ".env"), [repo])).toEqual({
      skipped: "it is not a regular file",
    });
  });

  it("reads no more than the limit of a file larger than it", () => {
    const repo = place("large");
    writeFileSync(join(repo, "AGENTS.md"), "x".repeat(5000));
    expect(readOwnFile(join(repo, "AGENTS.md"), [repo], 4096)).toEqual({
      skipped: "it is larger than 4 KB",
    });
  });

  it("says a missing file, or a link to nothing, is missing", () => {
    const repo = place("missing");
    symlinkSync(join(repo, "nowhere"), join(repo, "AGENTS.md"));
    expect(readOwnFile(join(repo, "AGENTS.md"), [repo])).toEqual({ missing: true });
    expect(readOwnFile(join(repo, "CLAUDE.md"), [repo])).toEqual({ missing: true });
  });
});

describe("settings files", () => {
  it("refuse a project's settings that link out of the project, in one sentence", async () => {
    const project = place("project-settings");
    mkdirSync(join(project, ".agentloop"));
    symlinkSync("/dev/zero", join(project, ".agentloop", "settings.json"));
    await expect(readSettings(join(project, ".agentloop", "settings.json"))).rejects.toThrow(
      `${join(project, ".agentloop", "settings.json")} was not read: it leads to /dev/zero, outside ${project}; fix or remove it.`,
    );
  });

  it("read a person's own settings through a link into a dotfiles checkout in their home", async () => {
    // A home of the test's own: os.homedir() follows HOME.
    const realHome = process.env.HOME;
    process.env.HOME = place("person");
    try {
      const dotfiles = join(process.env.HOME, "dotfiles");
      mkdirSync(dotfiles);
      writeFileSync(join(dotfiles, "settings.json"), '{"memory": true}');
      const config = place("elsewhere/config/agentloop");
      symlinkSync(join(dotfiles, "settings.json"), join(config, "settings.json"));
      expect(await readSettings(join(config, "settings.json"))).toEqual({ memory: true });
    } finally {
      process.env.HOME = realHome;
    }
  });
});
