import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { openInBrowser } from "../src/viewer/open-browser.js";
import { startViewerServer } from "../src/viewer/server.js";
import { findSessionFile, runViewCommand } from "../src/viewer/view-command.js";
import { syntheticSession } from "./support/synthetic-session.js";

const fixture = new URL("./fixtures/viewer-session.jsonl", import.meta.url).pathname;
const fixtureId = "2026-11-28T09-14-03-512-k3v9qa";
const fixtureCwd = "/home/ada/projects/tally";

function sessionsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-view-"));
  copyFileSync(fixture, join(dir, `${fixtureId}.jsonl`));
  return dir;
}

function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = host ? { host } : {};
    request(url, { headers, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("finding the session to view", () => {
  it("picks the newest session started in the working directory", () => {
    const dir = sessionsDir();
    writeFileSync(join(dir, "newer-elsewhere.jsonl"), syntheticSession(3, "/somewhere/else"));
    const older = syntheticSession(3, fixtureCwd).replace("2026-11-28T10:00", "2026-11-01T10:00");
    writeFileSync(join(dir, "older-here.jsonl"), older);
    expect(findSessionFile({ cwd: fixtureCwd, sessionsDir: dir })).toBe(
      join(dir, `${fixtureId}.jsonl`),
    );
  });

  it("finds a session by id or by the path of its file", () => {
    const dir = sessionsDir();
    expect(findSessionFile({ sessionId: fixtureId, cwd: "/", sessionsDir: dir })).toBe(
      join(dir, `${fixtureId}.jsonl`),
    );
    expect(findSessionFile({ sessionId: fixture, cwd: "/", sessionsDir: dir })).toBe(fixture);
  });

  it("says in one sentence when there is no session to show", () => {
    const dir = sessionsDir();
    expect(() => findSessionFile({ cwd: "/elsewhere", sessionsDir: dir })).toThrow(
      new ConfigError(
        "No session was recorded in /elsewhere; run agentloop here first, or name one: agentloop view SESSION_ID.",
      ),
    );
    expect(() => findSessionFile({ sessionId: "nope", cwd: "/", sessionsDir: dir })).toThrow(
      `No session "nope" in ${dir}; agentloop sessions lists the ones recorded here.`,
    );
  });
});

describe("agentloop view --export", () => {
  it("writes one HTML file holding the page, its script and the session", async () => {
    const dir = sessionsDir();
    const lines: string[] = [];
    await runViewCommand({
      cwd: dir,
      sessionId: fixtureId,
      sessionsDir: dir,
      exportPath: "out.html",
      stdout: (line) => lines.push(line),
    });
    expect(lines).toEqual([`Wrote ${join(dir, "out.html")} (3 requests, 6 messages).`]);
    const html = readFileSync(join(dir, "out.html"), "utf8");
    expect(html).toContain("toolu_03RdMe4q");
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it("names the lines it could not read", async () => {
    const dir = sessionsDir();
    const path = join(dir, "broken.jsonl");
    writeFileSync(path, `${readFileSync(fixture, "utf8")}{oops\n`);
    const lines: string[] = [];
    await runViewCommand({
      cwd: dir,
      sessionId: path,
      sessionsDir: dir,
      exportPath: "out.html",
      stdout: (line) => lines.push(line),
    });
    expect(lines[1]).toBe(
      "Note: line 11 of the session could not be read; the page shows the rest and lists why.",
    );
  });

  it("reports a session file it cannot read as one sentence", async () => {
    const dir = sessionsDir();
    mkdirSync(join(dir, "folder.jsonl"));
    const run = runViewCommand({
      cwd: dir,
      sessionsDir: dir,
      sessionId: "folder.jsonl",
      exportPath: "out.html",
      stdout: () => {},
    });
    await expect(run).rejects.toThrow(
      new ConfigError(
        `Could not read the session file ${join(dir, "folder.jsonl")}: EISDIR: illegal operation on a directory, read.`,
      ),
    );
  });

  it("reports a file it cannot write as one sentence", async () => {
    const dir = sessionsDir();
    const run = runViewCommand({
      cwd: dir,
      sessionsDir: dir,
      sessionId: fixtureId,
      exportPath: join(dir, "missing-dir", "out.html"),
      stdout: () => {},
    });
    await expect(run).rejects.toThrow(/^Could not write .*out\.html: ENOENT.*\.$/);
  });
});

describe("agentloop view (served)", () => {
  it("serves the page on 127.0.0.1, prints the URL and stops when told", async () => {
    const dir = sessionsDir();
    const lines: string[] = [];
    const stop = new AbortController();
    const running = runViewCommand({
      cwd: fixtureCwd,
      sessionsDir: dir,
      stdout: (line) => lines.push(line),
      signal: stop.signal,
    });
    await expect.poll(() => lines.length).toBe(2);
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(lines[0] ?? "")?.[1] ?? "";
    expect(lines[1]).toBe("Press Ctrl-C to stop.");
    const page = await get(url);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`agentloop session ${fixtureId}`);
    stop.abort();
    await running;
    await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("reads the file again on every request, so a reload shows new messages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-view-"));
    const path = join(dir, "live.jsonl");
    writeFileSync(path, syntheticSession(3));
    const server = await startViewerServer(path);
    try {
      expect((await get(server.url)).body).not.toContain("toolu_000002");
      writeFileSync(path, syntheticSession(5));
      expect((await get(server.url)).body).toContain("toolu_000002");
    } finally {
      await server.close();
    }
  });

  it("answers only requests addressed to it by name, and only for the page", async () => {
    const server = await startViewerServer(fixture);
    try {
      const port = new URL(server.url).port;
      expect((await get(server.url, `localhost:${port}`)).status).toBe(200);
      expect((await get(server.url, `attacker.example:${port}`)).status).toBe(403);
      expect((await get(`${server.url}etc/passwd`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("says when the chosen port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await expect(startViewerServer(fixture, port)).rejects.toThrow(
        `Port ${port} is already in use; choose another with --port, or leave it out to get a free one.`,
      );
    } finally {
      blocker.close();
    }
  });
});

describe("opening a browser", () => {
  const binDir = (script?: string) => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-opener-"));
    if (script) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "xdg-open"), `#!/bin/sh\n${script}\n`);
      chmodSync(join(dir, "xdg-open"), 0o755);
    }
    return dir;
  };
  const noticeFrom = (env: NodeJS.ProcessEnv) =>
    new Promise<string>((resolve) => openInBrowser("http://127.0.0.1:1/", resolve, env));

  it("hands the URL to the platform's opener", async () => {
    const dir = binDir('echo "$1" > "$OPENED"');
    openInBrowser("http://127.0.0.1:1/", () => {}, { PATH: dir, OPENED: join(dir, "opened") });
    await expect
      .poll(() => readFileSync(join(dir, "opened"), "utf8").trim())
      .toBe("http://127.0.0.1:1/");
  });

  it("gives a notice, not a crash, when there is no opener", async () => {
    expect(await noticeFrom({ PATH: binDir() })).toBe(
      "Could not open a browser (xdg-open is not available); open http://127.0.0.1:1/ yourself.",
    );
  });

  it("gives a notice when the opener fails", async () => {
    expect(await noticeFrom({ PATH: binDir("exit 3") })).toBe(
      "Could not open a browser (xdg-open exited with code 3); open http://127.0.0.1:1/ yourself.",
    );
  });
});
