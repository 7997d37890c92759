import { describe, expect, it } from "vitest";
import { buildCommandEnv } from "../src/tools/command-env.js";

describe("buildCommandEnv", () => {
  const user = {
    PATH: "/usr/bin",
    HOME: "/home/me",
    ANTHROPIC_API_KEY: "sk-ant",
    ANTHROPIC_AUTH_TOKEN: "tok",
    OPENAI_API_KEY: "sk-oai",
    GROQ_API_KEY: "gsk",
    PAGER: "less",
    GIT_PAGER: "delta",
    EDITOR: "vim",
    TERM: "xterm-256color",
    FORCE_COLOR: "3",
    BASH_ENV: "/home/me/.bashenv",
    UNSET: undefined,
  };

  it("keeps the user's ordinary variables", () => {
    const env = buildCommandEnv(user);
    expect(env).toMatchObject({ PATH: "/usr/bin", HOME: "/home/me" });
    expect("UNSET" in env).toBe(false);
  });

  it("removes the agent's own keys, and any other secret it is told about", () => {
    const env = buildCommandEnv(user, { secretNames: ["GROQ_API_KEY"] });
    for (const name of [
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "OPENAI_API_KEY",
      "GROQ_API_KEY",
    ]) {
      expect(env[name]).toBeUndefined();
    }
  });

  it("replaces pagers, editors and the terminal with ones that never wait", () => {
    expect(buildCommandEnv(user)).toMatchObject({
      PAGER: "cat",
      GIT_PAGER: "cat",
      MANPAGER: "cat",
      EDITOR: "false",
      VISUAL: "false",
      GIT_EDITOR: "false",
      GIT_TERMINAL_PROMPT: "0",
      TERM: "dumb",
      NO_COLOR: "1",
      CI: "true",
      DEBIAN_FRONTEND: "noninteractive",
    });
  });

  it("drops variables that force colour or make bash read a startup file", () => {
    const env = buildCommandEnv(user);
    expect(env.FORCE_COLOR).toBeUndefined();
    expect(env.BASH_ENV).toBeUndefined();
  });

  it("leaves the environment it was given untouched", () => {
    const copy = { ...user };
    buildCommandEnv(user);
    expect(user).toEqual(copy);
  });
});
