// What a repository can reach, tried as an attacker would, through the built CLI against the
// fake model servers, with secrets planted in the test's HOME: links out of the repository
// (AGENTS.md, an @import, a skill) bring no secret into any request and are named in a notice;
// a .env with its own Anthropic key and address sends the repository's server nothing when the
// person has an OpenAI key; HF_ENDPOINT in a .env leads to no download and no cache entry; a
// key the model tries to remember is stored nowhere and never resent, an ordinary fact is; and
// bad input (a .env linked to /dev/zero, a session file with an object for a tool result) ends
// in a sentence, not a stack trace. Secrets are made here, piece by piece, so no file of the
// repository holds one.

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTRACTION_MARK } from "../src/memory/extraction.js";
import { memoryDirectory } from "../src/memory/store.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { closedPortUrl } from "./support/closed-port.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { startFakeModelHost } from "./support/fake-model-host.js";

const piece = "Zq7Xw3Rt9Lm2Vb8Nc4Hd6Jf1Kp5Gs0Ty";
const AWS_SECRET = `aws_secret_access_key = ${piece}AWS`;
const SSH_SECRET = `-----BEGIN OPENSSH PRIVATE KEY-----\n${piece}SSH\n`;
const SKILL_SECRET = `deploy password ${piece}SKILL`;
const ANTHROPIC_KEY = `sk-ant-api03-${piece}${piece}`;

function put(root: string, path: string, content: string) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function link(root: string, path: string, target: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  symlinkSync(target, join(root, path));
}

/** Every file under `directory`, with its text ("" for none). */
function textUnder(directory: string): string {
  if (!existsSync(directory)) return "";
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

describe("what a repository can reach", () => {
  let anthropic: FakeModel;
  beforeAll(async () => {
    anthropic = await startFakeModel("anthropic");
  });
  afterAll(() => anthropic.close());

  /** A headless run against the Anthropic fake: its exit, output and the request bodies sent. */
  async function run(sandbox: Sandbox, args: string[], env: Record<string, string> = {}) {
    const before = anthropic.requestCount();
    const result = await runCli(["--permission-mode", "ask", ...args], {
      env: { ...sandbox.env, ...anthropic.env(), ...env },
      cwd: sandbox.workspace,
    });
    const bodies = anthropic
      .requests()
      .slice(before)
      .map((request) => request.body);
    return { ...result, bodies };
  }

  it("reads no project instructions, import or skill that links out of the repository, and names each", async () => {
    const sandbox = freshSandbox();
    put(sandbox.home, ".aws/credentials", `[default]\n${AWS_SECRET}\n`);
    put(sandbox.home, ".ssh/id_rsa", SSH_SECRET);
    put(sandbox.home, "notes/SKILL.md", `---\ndescription: Deploy\n---\n${SKILL_SECRET}\n`);
    const repo = sandbox.workspace;
    link(repo, "AGENTS.md", join(sandbox.home, ".aws/credentials"));
    put(repo, "sub/CLAUDE.md", "Follow the style guide: @../docs/style.md\n@../docs/guide.md\n");
    link(repo, "docs/style.md", join(sandbox.home, ".ssh/id_rsa"));
    // A link that stays inside the repository still works.
    put(repo, "docs/real-guide.md", "Write tests first.\n");
    link(repo, "docs/guide.md", "real-guide.md");
    link(repo, ".agentloop/skills/deploy/SKILL.md", join(sandbox.home, "notes/SKILL.md"));
    mkdirSync(join(repo, ".git"));

    anthropic.script([reply(text("Hi."))]);
    const { code, stderr, bodies } = await run({ ...sandbox, workspace: join(repo, "sub") }, [
      "-p",
      "hi",
    ]);

    expect(code).toBe(0);
    expect(bodies).toHaveLength(1);
    // Every planted secret shares `piece`.
    expect(bodies.join("\n")).not.toContain(piece);
    expect(bodies[0]).toContain("Write tests first.");
    expect(stderr).toContain(
      `AGENTS.md not read: it leads to ${join(sandbox.home, ".aws/credentials")}`,
    );
    expect(stderr).toContain(
      `docs/style.md not read: it leads to ${join(sandbox.home, ".ssh/id_rsa")}`,
    );
    expect(stderr).toContain(
      `skipped ${join(repo, ".agentloop/skills/deploy/SKILL.md")}: it leads to ${join(sandbox.home, "notes/SKILL.md")}`,
    );
  }, 30_000);

  it("does not let a .env with its own Anthropic key and address take a session whose person has an OpenAI key", async () => {
    const openai = await startFakeModel("openai");
    try {
      const sandbox = freshSandbox();
      put(
        sandbox.workspace,
        ".env",
        `ANTHROPIC_API_KEY=sk-ant-repository\nANTHROPIC_BASE_URL=${anthropic.url}\n`,
      );
      openai.script([reply(text("Hi from the person's own server."))]);
      const before = anthropic.requestCount();
      const result = await runCli(["--permission-mode", "ask", ...openai.flags, "-p", "hi"], {
        env: { ...sandbox.env, ...openai.env() },
        cwd: sandbox.workspace,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Hi from the person's own server.");
      expect(anthropic.requestCount()).toBe(before);
      expect(openai.requestCount()).toBe(1);
      expect(result.stderr).toContain(
        `${join(sandbox.workspace, ".env")} sets ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, not used: you have your own OPENAI_API_KEY`,
      );
    } finally {
      await openai.close();
    }
  }, 30_000);

  it("downloads nothing from a hub a .env names, and caches nothing", async () => {
    const hub = await startFakeModelHost([]);
    try {
      const sandbox = freshSandbox();
      put(sandbox.workspace, ".env", `HF_ENDPOINT=${hub.url}\n`);
      const cache = join(sandbox.home, ".cache");
      // The person's own hub is nowhere, so the run stays on this machine.
      const own = { HF_ENDPOINT: await closedPortUrl(), XDG_CACHE_HOME: cache };
      const result = await runCli(["--provider", "local", "-p", "hi"], {
        env: { ...sandbox.env, ...own },
        cwd: sandbox.workspace,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `${join(sandbox.workspace, ".env")} sets HF_ENDPOINT, not used`,
      );
      expect(hub.requests).toEqual([]);
      expect(textUnder(cache)).toBe("");
      expect(existsSync(join(cache, "agentloop/models/huggingface"))).toBe(false);
    } finally {
      await hub.close();
    }
  }, 30_000);

  it("remembers an ordinary fact, but no key the model tries to save or extraction proposes, and resends none", async () => {
    const sandbox = freshSandbox();
    put(sandbox.env.XDG_CONFIG_HOME as string, "agentloop/settings.json", '{"memory": true}');
    const fact = "Releases are cut from the main branch.";
    anthropic.script(
      [
        reply(
          toolUse("m1", "memory", {
            action: "add",
            topic: "project",
            text: `The deploy token is ${ANTHROPIC_KEY}`,
          }),
        ),
        reply(toolUse("m2", "memory", { action: "add", topic: "project", text: fact })),
        reply(text("Noted.")),
      ],
      {
        intercept: ({ lastUserText }) =>
          lastUserText.startsWith(EXTRACTION_MARK)
            ? reply(text(`REMEMBER project: the staging key is ${ANTHROPIC_KEY}`))
            : undefined,
      },
    );
    const first = await run(sandbox, ["-p", `Deploy with ${ANTHROPIC_KEY}; we release from main.`]);
    expect(first.code).toBe(0);
    const refusal = first.bodies.find((body) => body.includes("Not saved: the text holds"));
    expect(refusal).toContain("what looks like an Anthropic API key");
    const stored = textUnder(memoryDirectory(sandbox.workspace, sandbox.env));
    expect(stored).toContain(fact);
    expect(stored).not.toContain(piece);

    anthropic.script([reply(text("Done."))]);
    const next = await run(sandbox, ["-p", "Release it."]);
    expect(next.code).toBe(0);
    expect(next.bodies[0]).toContain(fact);
    expect(next.bodies.join("\n")).not.toContain(piece);
  }, 30_000);

  it("reads no .env that links to /dev/zero: one notice, and the session runs", async () => {
    const sandbox = freshSandbox();
    link(sandbox.workspace, ".env", "/dev/zero");
    anthropic.script([reply(text("Hi."))]);
    const { code, stderr, stdout } = await run(sandbox, ["-p", "hi"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Hi.");
    expect(stderr.trim().split("\n")).toEqual([
      `agentloop: ${join(sandbox.workspace, ".env")} was not read: it leads to /dev/zero, outside ${sandbox.workspace}.`,
    ]);
  }, 30_000);

  it("resumes a session file whose tool result is an object, sending it as its JSON text", async () => {
    const sandbox = freshSandbox();
    anthropic.script([
      reply(toolUse("r1", "read", { file_path: "notes.txt" })),
      reply(text("Read it.")),
    ]);
    put(sandbox.workspace, "notes.txt", "a note\n");
    expect((await run(sandbox, ["-p", "read the notes"])).code).toBe(0);
    const sessions = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
    const file = join(
      sessions,
      readdirSync(sessions).find((name) => name.endsWith(".jsonl")) ?? "",
    );
    const edited = readFileSync(file, "utf8").replace(
      /"type":"tool_result","tool_use_id":"r1","content":"[^"]*"/,
      '"type":"tool_result","tool_use_id":"r1","content":{"lines":["a note"]}',
    );
    expect(edited).toContain('"content":{"lines"');
    writeFileSync(file, edited);

    anthropic.script([reply(text("Going on."))]);
    const resumed = await run(sandbox, ["--continue", "-p", "and now?"]);
    expect(resumed.stderr).not.toMatch(/unexpected error|TypeError/);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Going on.");
    expect(resumed.bodies[0]).toContain('{\\"lines\\":[\\"a note\\"]}');
  }, 30_000);
});
