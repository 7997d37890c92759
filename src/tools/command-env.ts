// The environment every command runs in: the user's environment, minus the agent's own secrets,
// plus settings that make interactive programs give up instead of waiting for a person who is
// not there. The sandbox builds its environment with the same function.

/** The agent's own credentials: commands never see them. */
export const AGENT_SECRET_NAMES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
] as const;

/**
 * Variables that would make a command wait for input, open a full-screen program, or make
 * bash read a startup file. Editors are `false` so that `git commit` without `-m` fails at
 * once with git's own hint to pass `-m`, rather than committing an empty message.
 */
const NON_INTERACTIVE: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  GH_PAGER: "cat",
  EDITOR: "false",
  VISUAL: "false",
  GIT_EDITOR: "false",
  GIT_SEQUENCE_EDITOR: "false",
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  GH_PROMPT_DISABLED: "1",
  TERM: "dumb",
  NO_COLOR: "1",
  // Test runners stop watching and package managers stop asking (npx installs without a prompt).
  CI: "true",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  // Python buffers output it prints into a pipe; unbuffered, a timed-out script keeps its output.
  PYTHONUNBUFFERED: "1",
};

/** Variables removed because they would undo the settings above or run startup code. */
const REMOVED = ["FORCE_COLOR", "CLICOLOR_FORCE", "BASH_ENV", "ENV", "PROMPT_COMMAND"];

export interface CommandEnvOptions {
  /** More variable names to keep from commands, e.g. the key of a configured provider. */
  secretNames?: readonly string[];
}

export function buildCommandEnv(
  base: NodeJS.ProcessEnv,
  options: CommandEnvOptions = {},
): Record<string, string> {
  const hidden = new Set<string>([
    ...AGENT_SECRET_NAMES,
    ...REMOVED,
    ...(options.secretNames ?? []),
  ]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !hidden.has(name)) env[name] = value;
  }
  return { ...env, ...NON_INTERACTIVE };
}
