// Seatbelt runs only on a Mac; here its profile is tested as text and for what it promises.

import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HIDDEN_FROM_COMMANDS } from "../src/sandbox/hidden-paths.js";
import {
  createSeatbeltSandbox,
  type SeatbeltInput,
  seatbeltProfile,
} from "../src/sandbox/seatbelt.js";

const input: SeatbeltInput = {
  writable: true,
  allowNetwork: false,
  workspace: "/Users/dev/project",
  scratch: "/Users/dev/.local/state/agentloop/scratch/run-x1",
  gitPaths: ["/Users/dev/project/.git"],
  writableGitDir: false,
  hidden: ["/Users/dev/.ssh", "/Users/dev/.netrc", "/Users/dev/Library/Keychains"],
  sockets: ["/Users/dev/.colima", "/private/var/run/docker.sock"],
};

/** The parameters a profile uses, in the order it uses them. */
function referenced(profile: string): string[] {
  return [...profile.matchAll(/\(param "([A-Z_0-9]+)"\)/g)].map((match) => match[1] as string);
}

describe("the Seatbelt profile", () => {
  it.each([
    ["auto", input],
    ["auto with the network", { ...input, allowNetwork: true }],
    ["read-only", { ...input, writable: false }],
  ])("reads as written for %s", async (name, given) => {
    const { profile, parameters } = seatbeltProfile(given);
    await expect(profile).toMatchFileSnapshot(`fixtures/seatbelt/${name.replaceAll(" ", "-")}.sb`);
    await expect(`${JSON.stringify(parameters, null, 2)}\n`).toMatchFileSnapshot(
      `fixtures/seatbelt/${name.replaceAll(" ", "-")}.parameters.json`,
    );
  });

  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])(
    "holds no path of its own: every path is a parameter (writable %s, network %s)",
    (writable, allowNetwork) => {
      const { profile, parameters } = seatbeltProfile({ ...input, writable, allowNetwork });
      // Only the devices a shell writes to are named in the profile itself.
      expect(profile).not.toMatch(/"\/(?!dev\/(null|zero|stdout|stderr|fd)")/);
      expect(new Set(referenced(profile))).toEqual(new Set(Object.keys(parameters)));
      const paths = [input.workspace, input.scratch, ...input.gitPaths, ...input.hidden];
      for (const path of [...paths, ...input.sockets]) {
        expect(profile).not.toContain(path);
      }
    },
  );

  it("has no network rule when the network is off", () => {
    const { profile, parameters } = seatbeltProfile(input);
    expect(profile).not.toMatch(/network/);
    expect(Object.keys(parameters).filter((name) => name.startsWith("SOCKET_"))).toEqual([]);
  });

  it("denies the host's daemon sockets when the network is on", () => {
    const { profile, parameters } = seatbeltProfile({ ...input, allowNetwork: true });
    const denied = /\(deny network-outbound (.*)\)$/m.exec(profile)?.[1] ?? "";
    expect(referenced(denied).map((name) => parameters[name])).toEqual(input.sockets);
    expect(profile.indexOf("(allow network*)")).toBeLessThan(profile.indexOf(denied));
  });

  it("denies reading and writing every credential path, in the last rule, which wins", () => {
    const { profile, parameters } = seatbeltProfile(input);
    const rules = profile.trim().split("\n");
    const last = rules[rules.length - 1] as string;
    expect(last).toMatch(/^\(deny file-read\* file-write\* /);
    expect(referenced(last).map((name) => parameters[name])).toEqual(input.hidden);
  });

  it("keeps the repository's git state unwritable after allowing the workspace, the credentials last", () => {
    const { profile, parameters } = seatbeltProfile(input);
    const denied = /^\(deny file-write\* (.*)\)$/m.exec(profile)?.[1] ?? "";
    expect(referenced(denied).map((name) => parameters[name])).toEqual(input.gitPaths);
    const allowed = profile.indexOf("(allow file-write* ");
    expect(allowed).toBeGreaterThan(-1);
    expect(profile.indexOf(denied)).toBeGreaterThan(allowed);
    expect(profile.indexOf(denied)).toBeLessThan(profile.indexOf("(deny file-read* file-write*"));
  });

  it("lets the git state be written only where the workspace is, with writableGitDir", () => {
    const open = seatbeltProfile({ ...input, writableGitDir: true });
    const writes = /^\(allow file-write\* (.*)\)$/m.exec(open.profile)?.[1] ?? "";
    expect(referenced(writes).map((name) => open.parameters[name])).toContain(input.gitPaths[0]);
    expect(open.profile).not.toMatch(/^\(deny file-write\* /m);
    const readOnly = seatbeltProfile({ ...input, writable: false, writableGitDir: true });
    expect(readOnly.profile).toMatch(/^\(deny file-write\* /m);
  });

  it("lets read-only commands write to the scratch directory alone", () => {
    const { profile, parameters } = seatbeltProfile({ ...input, writable: false });
    const writes = /^\(allow file-write\* (.*)\)$/m.exec(profile)?.[1] ?? "";
    expect(referenced(writes).map((name) => parameters[name])).toEqual([input.scratch]);
    expect(Object.values(parameters)).not.toContain(input.workspace);
  });
});

describe("the Seatbelt sandbox's command line", () => {
  const real = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-seatbelt-")));
  const home = join(real, "home");
  const workspace = join(real, "project");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  // As /tmp is a link to /private/tmp on a Mac: the sandbox must name where links lead.
  const linked = join(real, "linked");
  symlinkSync(real, linked);
  const sandbox = createSeatbeltSandbox({
    workspace: join(linked, "project"),
    writable: true,
    allowNetwork: false,
    tmpDir: join(linked, "scratch"),
    home: join(linked, "home"),
  });
  const argv = sandbox.wrap(["bash", "-c", "echo hi"], { cwd: workspace });
  const defines: Record<string, string> = Object.fromEntries(
    argv.filter((arg) => arg.startsWith("-D")).map((arg) => arg.slice(2).split(/=(.*)/s, 2)),
  );

  it("runs sandbox-exec from /usr/bin with the profile, then the command with TMPDIR set", () => {
    const profile = seatbeltProfile({
      writable: true,
      allowNetwork: false,
      workspace,
      scratch: join(real, "scratch"),
      gitPaths: [],
      writableGitDir: false,
      hidden: HIDDEN_FROM_COMMANDS.map((path) => join(home, path)),
      sockets: [],
    }).profile;
    expect(argv.slice(0, 3)).toEqual(["/usr/bin/sandbox-exec", "-p", profile]);
    expect(argv.slice(argv.indexOf("--"))).toEqual([
      "--",
      "/usr/bin/env",
      `TMPDIR=${join(real, "scratch")}`,
      "bash",
      "-c",
      "echo hi",
    ]);
  });

  it("gives every path in canonical form, links resolved", () => {
    expect(defines.WORKSPACE).toBe(workspace);
    expect(defines.SCRATCH).toBe(join(real, "scratch"));
    expect(Object.values(defines).filter((value) => value.includes(linked))).toEqual([]);
    expect(Object.values(defines)).toContain(join(home, ".ssh"));
    expect(Object.values(defines)).toContain(join(home, "Library/Keychains"));
  });

  it("names the git directory of the workspace's repository, found at each command", () => {
    expect(Object.keys(defines).filter((name) => name.startsWith("GIT_"))).toEqual([]);
    mkdirSync(join(workspace, ".git"));
    const again = sandbox.wrap(["true"], { cwd: workspace });
    expect(again).toContain(`-DGIT_0=${join(workspace, ".git")}`);
  });
});
