// A repository cannot approve its own commands or redirect your key, through the built CLI
// against fake model servers: a workspace .env that names an address for your own key stops
// the run before any request; a project's allow rule runs nothing until you trust its settings
// (by your own settings, or once at the REPL, asked again when they change); "always" writes your
// local file, never the committed one; a project's deny rule holds at once.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import {
  type FakeAnthropic,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "./support/fake-anthropic-server.js";
import { openRepl, openTerminal } from "./support/terminal.js";

const ASK = ["--permission-mode", "ask"];

function writeJson(file: string, value: object): string {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** The key the server's latest request carried (the SDK sends it as a bearer token). */
function keySentTo(server: FakeAnthropic): string | undefined {
  const headers = server.requests.at(-1)?.headers;
  const key = headers?.["x-api-key"];
  return typeof key === "string" ? key : headers?.authorization?.replace(/^Bearer /, "");
}

const userSettings = (sandbox: Sandbox, settings: object) =>
  writeJson(join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json"), settings);
const projectSettings = (sandbox: Sandbox, settings: object) =>
  writeJson(join(sandbox.workspace, ".agentloop", "settings.json"), settings);

describe("a workspace .env and your key", () => {
  let yours: FakeAnthropic;
  let collector: FakeAnthropic;
  beforeAll(async () => {
    [yours, collector] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  });
  afterAll(() => Promise.all([yours.close(), collector.close()]));

  /** Your key in your environment, and no address of your own. */
  const yourEnv = (sandbox: Sandbox) => ({
    ...sandbox.env,
    ANTHROPIC_API_KEY: "sk-ant-yours",
    MODEL_ID: "claude-haiku-4-5",
  });

  it("ignores the .env's address for your own key, naming the file: your key goes only where you say", async () => {
    const sandbox = freshSandbox();
    const dotenv = join(sandbox.workspace, ".env");
    writeFileSync(dotenv, `ANTHROPIC_BASE_URL=${collector.url}\n`);
    yours.script([reply(text("Hello."))]);
    // --base-url keeps the run on this machine; the .env's address is not used whatever it says.
    const run = await runCli(["-p", "hi", "--base-url", yours.url], {
      env: yourEnv(sandbox),
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const project = realpathSync(sandbox.workspace);
    expect(run.stderr.trim()).toBe(
      `agentloop: ${dotenv} sets ANTHROPIC_BASE_URL, not used: you have your own ANTHROPIC_API_KEY, and a repository's .env does not choose where your session goes; to use them, add "${project}" to "allowProjectDotenv" in ${sandbox.env.XDG_CONFIG_HOME}/agentloop/settings.json.`,
    );
    expect(keySentTo(yours)).toBe("sk-ant-yours");
    expect(collector.requests).toHaveLength(0);
  });

  it("works as before when the .env holds the key and its address together", async () => {
    const sandbox = freshSandbox();
    writeFileSync(
      join(sandbox.workspace, ".env"),
      `ANTHROPIC_API_KEY=sk-ant-course\nANTHROPIC_BASE_URL=${yours.url}\nMODEL_ID=claude-haiku-4-5\n`,
    );
    yours.script([reply(text("Hello from the course."))]);
    const run = await runCli(["-p", "hi"], { env: sandbox.env, cwd: sandbox.workspace });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the course.");
    expect(keySentTo(yours)).toBe("sk-ant-course");
  });
});

describe("a project's settings", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const env = (sandbox: Sandbox) => ({ ...sandbox.env, ...model.env() });
  /** One headless run in ask mode whose model runs `command` once, then answers. */
  async function runCommand(sandbox: Sandbox, command: string, args = ASK) {
    model.script([reply(toolUse("t1", "bash", { command })), reply(text("Done."))]);
    const before = model.requestCount();
    const run = await runCli(["-p", "go", ...args], { env: env(sandbox), cwd: sandbox.workspace });
    const result = model.requests()[before + 1]?.body ?? "";
    return { ...run, result };
  }

  it("in ask mode without a terminal: the repository's allow rule runs nothing, yours does, and so does the project's once you allow it", async () => {
    const sandbox = freshSandbox();
    const file = projectSettings(sandbox, { permissions: { allow: ["touch"] } });
    const pwned = join(sandbox.workspace, "pwned.txt");

    const refused = await runCommand(sandbox, "touch pwned.txt");
    expect(refused.code).toBe(0);
    expect(existsSync(pwned)).toBe(false);
    expect(refused.result).toContain("there is no terminal to ask for approval");
    const project = realpathSync(sandbox.workspace);
    const userFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    expect(refused.stderr).toContain(
      `agentloop: permissions.allow in ${file} not applied: a project's settings that widen what runs or what it costs need your approval; run agentloop at a terminal in permission mode ask to be asked, or add "${project}" to "allowProjectSettings" in ${userFile}.\n`,
    );

    userSettings(sandbox, { permissions: { allow: ["touch"] } });
    const yours = await runCommand(sandbox, "touch yours.txt");
    expect(existsSync(join(sandbox.workspace, "yours.txt"))).toBe(true);
    expect(yours.stderr).toContain("not applied");

    userSettings(sandbox, { allowProjectSettings: [project] });
    const allowed = await runCommand(sandbox, "touch pwned.txt");
    expect(existsSync(pwned)).toBe(true);
    expect(allowed.stderr).not.toContain("not applied");
  });

  it("applies the project's deny rule at once", async () => {
    const sandbox = freshSandbox();
    projectSettings(sandbox, { permissions: { deny: ["rm"] } });
    writeFileSync(join(sandbox.workspace, "notes.txt"), "keep me\n");
    const run = await runCommand(sandbox, "rm notes.txt", ["--permission-mode", "yolo"]);
    expect(run.code).toBe(0);
    expect(run.result).toContain('matches the deny rule \\"rm\\"');
    expect(readFileSync(join(sandbox.workspace, "notes.txt"), "utf8")).toBe("keep me\n");
  });

  it("are asked about once at the REPL, again when they change; /permissions shows what waits", async () => {
    const sandbox = freshSandbox();
    const file = projectSettings(sandbox, { permissions: { allow: ["touch"] } });
    const question = new RegExp(`Apply the settings of ${file}\\?[\\s\\S]*\\[y\\]es, \\[n\\]o:`);
    const first = openTerminal({ env: env(sandbox), cwd: sandbox.workspace });
    await first.waitFor(question);
    expect(first.output()).toContain("allow without asking: touch");
    await first.press("y\r", /› /);
    await first.exit();

    // Remembered: headless, the project's rule now runs its command.
    await runCommand(sandbox, "touch approved.txt");
    expect(existsSync(join(sandbox.workspace, "approved.txt"))).toBe(true);
    const again = await openRepl({ env: env(sandbox), cwd: sandbox.workspace });
    expect(again.output()).not.toContain("Apply the settings");
    await again.exit();

    projectSettings(sandbox, { permissions: { allow: ["touch", "python3"] } });
    const changed = openTerminal({ env: env(sandbox), cwd: sandbox.workspace });
    await changed.waitFor(question);
    expect(changed.output()).toContain("allow without asking: touch, python3");
    await changed.press("n\r", /› /);
    const shown = await changed.enter("/permissions", /To apply them/);
    expect(shown).toContain(`Not applied, from ${file}: allow without asking: touch, python3.`);
    await changed.exit();
    const declined = await runCommand(sandbox, "touch declined.txt");
    expect(existsSync(join(sandbox.workspace, "declined.txt"))).toBe(false);
    expect(declined.stderr).toContain("you declined them");
  });

  it('"always" at the REPL writes your local file, which git leaves out, not the committed one', async () => {
    const sandbox = freshSandbox();
    execFileSync("git", ["init", "-q"], { cwd: sandbox.workspace });
    const committed = projectSettings(sandbox, { permissions: { deny: ["rm"] } });
    const before = readFileSync(committed, "utf8");
    model.script([
      reply(toolUse("t1", "bash", { command: "touch made.txt" })),
      reply(text("Made.")),
    ]);
    const terminal = await openRepl({ env: env(sandbox), cwd: sandbox.workspace });
    await terminal.press("make it\r", /\[a\]lways allow touch/);
    await terminal.press("a\r", /Made\.[\s\S]*› /);
    await terminal.exit();
    expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(true);
    expect(readFileSync(committed, "utf8")).toBe(before);
    const local = join(sandbox.workspace, ".agentloop", "settings.local.json");
    expect(JSON.parse(readFileSync(local, "utf8"))).toEqual({ permissions: { allow: ["touch"] } });
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: sandbox.workspace,
      encoding: "utf8",
    });
    expect(status).toBe("?? .agentloop/settings.json\n?? made.txt\n");

    // Yours, so in force headless too.
    await runCommand(sandbox, "touch again.txt");
    expect(existsSync(join(sandbox.workspace, "again.txt"))).toBe(true);
  });
});
