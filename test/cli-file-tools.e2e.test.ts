// The file tools through the built CLI against the fake Anthropic server: the model reads a
// file, edits it and writes another, each result reaches the server, and the files on disk
// are what the edits say; --tools bash gives exactly the s01 tool set.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  HOSTED_DEFAULT_TOOLS,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

interface Body {
  tools?: { name: string }[];
  messages: {
    role: string;
    content: string | { type: string; content?: string; is_error?: boolean }[];
  }[];
}

const bodies = (model: FakeModel) =>
  model.requests().map((request) => JSON.parse(request.body) as Body);

/** The tool results the last message of a request carries. */
function lastResults(body: Body) {
  const last = body.messages.at(-1);
  return typeof last?.content === "string"
    ? []
    : (last?.content ?? []).filter((b) => b.type === "tool_result");
}

describe("file tools through the CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("reads, edits and writes files in the workspace, and each result reaches the model", async () => {
    const sandbox = freshSandbox();
    writeFileSync(
      join(sandbox.workspace, "app.js"),
      'console.log("hello");\r\nconsole.log("bye");\r\n',
    );
    writeFileSync(join(sandbox.workspace, "other.js"), "const n = 1;\n");
    model.script([
      reply(toolUse("t1", "read", { file_path: "app.js" })),
      reply(
        toolUse("t2", "edit", {
          file_path: "app.js",
          old_string: 'console.log("hello");',
          new_string: 'console.log("hello, world");',
        }),
      ),
      reply(toolUse("t3", "write", { file_path: "notes/todo.md", content: "- greet the world\n" })),
      reply(toolUse("t4", "edit", { file_path: "other.js", old_string: "1", new_string: "2" })),
      reply(text("Done.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(["-p", "greet the world"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Done.");

    const sent = bodies(model).slice(before);
    expect(sent[0]?.tools?.map((tool) => tool.name)).toEqual(HOSTED_DEFAULT_TOOLS);
    expect(lastResults(sent[1] as Body)).toEqual([
      expect.objectContaining({
        content: '     1\tconsole.log("hello");\n     2\tconsole.log("bye");',
        is_error: false,
      }),
    ]);
    expect(lastResults(sent[2] as Body)[0]?.content).toMatch(
      /^Edited .*app\.js: 1 replacement, \+1 -1 lines\.\n[\s\S]*-console\.log\("hello"\);\n\+console\.log\("hello, world"\);/,
    );
    expect(lastResults(sent[3] as Body)[0]?.content).toMatch(
      /^Created .*notes\/todo\.md \(1 line\)\.$/,
    );
    expect(lastResults(sent[4] as Body)[0]).toMatchObject({ is_error: true });
    expect(lastResults(sent[4] as Body)[0]?.content).toMatch(/has not been read in this session/);

    // The file keeps its CRLF line endings; the new file is where the model put it.
    expect(readFileSync(join(sandbox.workspace, "app.js"), "utf8")).toBe(
      'console.log("hello, world");\r\nconsole.log("bye");\r\n',
    );
    expect(readFileSync(join(sandbox.workspace, "notes", "todo.md"), "utf8")).toBe(
      "- greet the world\n",
    );
    expect(run.stderr).toMatch(/⏺ edit app\.js/);
  });

  it("refuses, in auto mode, to write outside the workspace and the temp directory", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(toolUse("t1", "write", { file_path: "/nonexistent-agentloop/x.txt", content: "no" })),
      reply(text("Understood.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(["-p", "write outside"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const [result] = lastResults(bodies(model)[before + 1] as Body);
    expect(result).toMatchObject({ is_error: true });
    expect(result?.content).toMatch(
      /^Permission denied: write would change "\/nonexistent-agentloop\/x\.txt", outside the workspace, and auto mode does not ask/,
    );
  });

  it("--tools bash sends exactly the s01 tool set", async () => {
    const sandbox = freshSandbox();
    model.script([reply(text("Only bash here."))]);
    const before = model.requestCount();
    const run = await runCli(["--tools", "bash", "-p", "hi"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    expect(bodies(model)[before]?.tools?.map((tool) => tool.name)).toEqual(["bash"]);
    const unknown = await runCli(["--tools", "bash,grep", "-p", "hi"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--tools names an unknown tool "grep": choose from bash, read, write, edit, todo_write, skill, agent, task_create, task_list, task_get, task_update, send_message, web_fetch, web_search, cron_create, cron_list, cron_delete\./,
    );
  });

  it("takes the user's settings from the real environment, never from the repository's .env", async () => {
    const sandbox = freshSandbox();
    // A repository that tries to stand in for the user's settings through its .env.
    const fake = join(sandbox.workspace, "fake-config", "agentloop");
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, "settings.json"), JSON.stringify({ tools: ["bash"] }));
    writeFileSync(join(sandbox.workspace, ".env"), "XDG_CONFIG_HOME=./fake-config\n");
    const { XDG_CONFIG_HOME: _, ...env } = { ...sandbox.env, ...model.env() };
    model.script([reply(text("ok"))]);
    const before = model.requestCount();
    const run = await runCli(["-p", "hi"], { env, cwd: sandbox.workspace });
    expect(run.code).toBe(0);
    // The default set (web_search is Anthropic's server tool, named as the API names it).
    expect(bodies(model)[before]?.tools?.map((tool) => tool.name)).toEqual(HOSTED_DEFAULT_TOOLS);
  });
});
