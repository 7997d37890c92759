// Skills, custom commands and project memory (course s07, s09) through the built CLI against
// the fake Anthropic server: what the first request carries, what the skill tool returns, how
// `/name args` expands with -p and in the REPL, and what is restated after a compaction.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

interface SentRequest {
  system: unknown;
  tools: { name: string }[];
  messages: { role: string; content: unknown }[];
}

function put(root: string, path: string, content: string) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

const REVIEW_SKILL = [
  "---",
  "name: review",
  "description: Review a change for bugs and missing tests",
  "argument-hint: [file]",
  "---",
  "Read $ARGUMENTS line by line. The first word is $1.",
  "Run scripts/check.sh when done.",
].join("\n");

const LINT_SKILL = "---\ndescription: Fix lint errors\n---\nRun the linter with --fix.";

describe("skills, commands and project memory", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(turns: FakeTurn[], args: string[], sandbox: Sandbox) {
    model.script(turns);
    const before = model.requestCount();
    const result = await runCli(["--output-format", "stream-json", ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    const requests = model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as SentRequest);
    const results = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; result?: ToolResultBlock })
      .flatMap((event) => (event.type === "tool_end" && event.result ? [event.result] : []));
    return { ...result, requests, results, system: JSON.stringify(requests[0]?.system) };
  }

  it("sends a project skill's description, not its body, in the first request", async () => {
    const sandbox = freshSandbox();
    put(sandbox.workspace, ".agentloop/skills/review/SKILL.md", REVIEW_SKILL);
    const { code, requests, system } = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    expect(code).toBe(0);
    expect(system).toContain(
      "- review: Review a change for bugs and missing tests (.agentloop/skills/review/SKILL.md)",
    );
    expect(system).not.toContain("line by line");
    expect(requests[0]?.tools.map((tool) => tool.name)).toEqual([
      "bash",
      "read",
      "write",
      "edit",
      "skill",
      "agent",
      "web_fetch",
      "web_search",
    ]);

    // A tool set chosen without the skill tool leaves out the catalog too.
    const chosen = await run([reply(text("Hi."))], ["--tools", "bash", "-p", "hi"], sandbox);
    expect(chosen.requests[0]?.tools.map((tool) => tool.name)).toEqual(["bash"]);
    expect(chosen.system).not.toContain("review");
  });

  it("answers a skill call with the body, its arguments substituted, its directory and files; a second call says it is loaded", async () => {
    const sandbox = freshSandbox();
    put(sandbox.workspace, ".claude/skills/review/SKILL.md", REVIEW_SKILL);
    put(sandbox.workspace, ".claude/skills/review/scripts/check.sh", "echo ok\n");
    const load = { name: "review", arguments: "src/app.ts quickly" };
    const { code, results } = await run(
      [
        reply(toolUse("s1", "skill", load)),
        reply(toolUse("s2", "skill", load)),
        reply(text("Reviewed.")),
      ],
      ["-p", "review the app"],
      sandbox,
    );
    expect(code).toBe(0);
    const [first, second] = results;
    expect(first?.is_error).toBeFalsy();
    expect(first?.content).toContain(
      "Read src/app.ts quickly line by line. The first word is src/app.ts.",
    );
    expect(first?.content).toContain(
      `Its directory: ${join(sandbox.workspace, ".claude/skills/review")}`,
    );
    expect(first?.content).toContain("Files there: scripts/check.sh");
    expect(second?.content).toMatch(/^Skill review is already loaded/);

    // A resumed session knows it has loaded the skill.
    const resumed = await run(
      [reply(toolUse("s3", "skill", load)), reply(text("Done."))],
      ["--continue", "-p", "go on"],
      sandbox,
    );
    expect(resumed.results[0]?.content).toMatch(/^Skill review is already loaded/);
  });

  it("finds a skill in .agents/skills/ and one in the user's own directory", async () => {
    const sandbox = freshSandbox();
    put(
      sandbox.workspace,
      ".agents/skills/lint/SKILL.md",
      "---\ndescription: Fix lint errors\n---\nRun the linter.",
    );
    put(
      sandbox.home,
      ".claude/skills/notes/SKILL.md",
      "---\nname: notes\ndescription: Keep release notes\n---\nWrite notes.",
    );
    const { system } = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    expect(system).toContain("- lint: Fix lint errors (.agents/skills/lint/SKILL.md)");
    expect(system).toContain("- notes: Keep release notes (~/.claude/skills/notes/SKILL.md)");
  });

  it("skips a skill without a description with one line, and offers no skill tool for it", async () => {
    const sandbox = freshSandbox();
    put(sandbox.workspace, ".agentloop/skills/vague/SKILL.md", "---\nname: vague\n---\nDo things.");
    const { stderr, requests, system } = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    const file = join(sandbox.workspace, ".agentloop/skills/vague/SKILL.md");
    expect(stderr).toContain(`agentloop: skipped ${file}: its frontmatter has no "description".\n`);
    expect(system).not.toContain("vague");
    expect(requests[0]?.tools.map((tool) => tool.name)).not.toContain("skill");
  });

  it('expands -p "/review src/app.ts" from .claude/commands/review.md, saying what it ignores', async () => {
    const sandbox = freshSandbox();
    put(
      sandbox.workspace,
      ".claude/commands/review.md",
      "---\ndescription: Review one file\nallowed-tools: Bash(git diff:*)\n---\nReview $1 against !`git diff`.\n",
    );
    const { code, requests, stderr } = await run(
      [reply(text("Looks fine."))],
      ["-p", "/review src/app.ts"],
      sandbox,
    );
    expect(code).toBe(0);
    expect(JSON.stringify(requests[0]?.messages[0]?.content)).toContain(
      "Review src/app.ts against !`git diff`.",
    );
    expect(stderr).toContain("/review (");
    expect(stderr).toMatch(/ignored allowed-tools .* and !`command`/);
  });

  it("runs a command on the model its frontmatter names", async () => {
    const sandbox = freshSandbox();
    put(
      sandbox.workspace,
      ".agentloop/commands/quick.md",
      "---\nmodel: claude-sonnet-4-5\n---\nBe quick.",
    );
    const { code, requests } = await run([reply(text("Quick."))], ["-p", "/quick"], sandbox);
    expect(code).toBe(0);
    expect((requests[0] as unknown as { model: string }).model).toBe("claude-sonnet-4-5");
  });

  it("are mentioned in agentloop --help", async () => {
    const sandbox = freshSandbox();
    const { stdout } = await runCli(["--help"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(stdout).toContain("Skills and commands: .agentloop/skills/NAME/SKILL.md");
    expect(stdout).toContain("AGENTS.md or CLAUDE.md (with @path imports)");
  });

  it("imports @docs/rules.md into the system prompt and reports an import cycle", async () => {
    const sandbox = freshSandbox();
    put(
      sandbox.workspace,
      "AGENTS.md",
      "Follow @docs/rules.md. Also see `@docs/not-this.md`.\n<!-- a note for people -->",
    );
    put(sandbox.workspace, "docs/rules.md", "Rule one: small commits. See @loop.md");
    put(sandbox.workspace, "docs/loop.md", "Back to @rules.md");
    const { system, stderr } = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    expect(system).toContain("Imported from docs/rules.md:\\nRule one: small commits.");
    expect(system).toContain("Imported from docs/loop.md:\\nBack to @rules.md");
    expect(system).not.toContain("a note for people");
    expect(stderr).toContain(
      "agentloop: docs/loop.md: @rules.md not imported: an import cycle (docs/rules.md → docs/loop.md → docs/rules.md).",
    );
    expect(stderr).not.toContain("not-this");
  });

  it("reads the personal AGENTS.md first and AGENTS.local.md last", async () => {
    const sandbox = freshSandbox();
    put(sandbox.home, ".config/agentloop/AGENTS.md", "PERSONAL: answer in English.");
    put(sandbox.workspace, "AGENTS.md", "PROJECT: use pnpm.");
    put(sandbox.workspace, "AGENTS.local.md", "LOCAL: my test database is on port 5433.");
    const { system } = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    const order = ["PERSONAL", "PROJECT", "LOCAL"].map((word) => system.indexOf(word));
    expect(order.every((index) => index > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("tells the model today's date, and whether the workspace is a git repository", async () => {
    const sandbox = freshSandbox();
    const outside = await run([reply(text("Hi."))], ["-p", "hi"], sandbox);
    const today = new Date();
    const date = [today.getFullYear(), today.getMonth() + 1, today.getDate()]
      .map((part) => String(part).padStart(2, "0"))
      .join("-");
    expect(outside.system).toContain(`Today is ${date};`);
    expect(outside.system).toContain("; not a git repository.");

    put(sandbox.workspace, ".git/HEAD", "ref: refs/heads/feature-x\n");
    const inside = await run(
      [reply(text("Hi."))],
      ["-p", "--permission-mode", "auto", "hi"],
      sandbox,
    );
    expect(inside.system).toContain(`; git repository ${sandbox.workspace}, branch feature-x.`);
    expect(inside.system).toContain("Starting permission mode auto: commands run sandboxed");
    expect(inside.system).toContain("no network");
  });
});

describe("skills in the REPL", () => {
  it("lists them in /skills and /help, runs /review, and restates it after /compact", async () => {
    const model = await startFakeModel("anthropic");
    try {
      const sandbox = freshSandbox();
      put(sandbox.workspace, ".claude/skills/review/SKILL.md", REVIEW_SKILL);
      put(sandbox.workspace, ".claude/skills/lint/SKILL.md", LINT_SKILL);
      put(sandbox.home, ".config/agentloop/commands/standup.md", "Summarise yesterday's commits.");
      model.script(
        [
          reply(toolUse("s1", "skill", { name: "review" })),
          reply(toolUse("s2", "skill", { name: "lint" })),
          reply(text("Reviewed the app.")),
          reply(text("Still following the review.")),
        ],
        {
          intercept: ({ lastUserText }) =>
            lastUserText.includes("[agentloop] The conversation")
              ? reply(text("The app was reviewed."))
              : undefined,
        },
      );
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--permission-mode", "yolo"],
      });
      await terminal.enter(
        "/skills",
        /\/review \[file\] {2}skill of the project, \.claude\/skills\/review\/SKILL\.md; invoked by you or the model[\s\S]*\/standup {2}command of the user, ~\/\.config\/agentloop\/commands\/standup\.md; invoked by you only/,
      );
      await terminal.enter("/help", /\/review \[file\] +\(skill\) Review a change for bugs/);
      await terminal.enter("/review src/app.ts", /Reviewed the app\./);
      await terminal.enter("/compact", /Compacted\./);
      await terminal.enter("go on", /Still following the review\./);
      await terminal.exit();

      const requests = model.requests().map((request) => JSON.parse(request.body) as SentRequest);
      const typed = JSON.stringify(requests[0]?.messages[0]?.content);
      expect(typed).toContain("Read src/app.ts line by line.");
      // The model's own load of the same skill is answered without the text again.
      const second = JSON.stringify(requests[1]?.messages.at(-1)?.content);
      expect(second).toContain("Skill review is already loaded");
      // The summary is followed by the skills loaded, the one the model loaded among them.
      const afterCompaction = JSON.stringify(requests.at(-1)?.messages[0]?.content);
      expect(afterCompaction).toContain("Skills loaded earlier in this session");
      expect(afterCompaction).toContain("Run the linter with --fix.");
      expect(JSON.stringify(requests.at(-1)?.messages.slice(1))).not.toContain("--fix");
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe("a command with a model in the REPL", () => {
  it("runs that one prompt on its model, then goes back to the session's", async () => {
    const model = await startFakeModel("anthropic");
    try {
      const sandbox = freshSandbox();
      put(
        sandbox.workspace,
        ".agentloop/commands/deep.md",
        "---\nmodel: claude-sonnet-4-5\n---\nThink about $ARGUMENTS.",
      );
      model.script([reply(text("Thought hard.")), reply(text("Back again."))]);
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--permission-mode", "yolo"],
      });
      await terminal.enter("/deep the cache", /Thought hard\./);
      await terminal.enter("and now?", /Back again\./);
      await terminal.exit();
      const sent = model.requests().map((request) => JSON.parse(request.body) as { model: string });
      expect(sent.map((request) => request.model)).toEqual([
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
      ]);
    } finally {
      await model.close();
    }
  }, 60_000);
});
