// Which hooks a step runs: a hook's matcher against the tool's name (PreToolUse, PostToolUse),
// SessionStart's source or PreCompact's trigger. As in Claude Code, a matcher is a name, names
// joined by "|", or a regular expression; none, "" or "*" matches everything. Claude Code's tool
// names are aliases of agentloop's, so "Bash|Edit" written for Claude Code works unchanged. A
// regular expression must match the whole name: "Edit" does not match "edit_notebook".

/** Claude Code's names for the tools agentloop has under another name. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
  Bash: "bash",
  Read: "read",
  Write: "write",
  Edit: "edit",
  TodoWrite: "todo_write",
};

export interface Matcher {
  matches(value: string): boolean;
  /** Why the matcher cannot be used (an invalid regular expression); absent when it can. */
  problem?: string;
}

export function compileMatcher(matcher: string): Matcher {
  const pattern = matcher.trim();
  if (pattern === "" || pattern === "*") return { matches: () => true };
  let expression: RegExp;
  try {
    expression = new RegExp(`^(?:${pattern})$`);
  } catch (error) {
    const why = (error as Error).message;
    return { matches: () => false, problem: `is not a valid regular expression (${why})` };
  }
  const aliases = Object.entries(CLAUDE_TOOL_NAMES);
  return {
    matches: (value) =>
      expression.test(value) ||
      aliases.some(([claude, ours]) => ours === value && expression.test(claude)),
  };
}
