// Where the words of a rewind are printed, the REPL or the shell, so that every hint names a
// command as it is typed there: `/rewind r1 force` at the REPL, `agentloop rewind r1 --force`
// in the shell (the REPL takes the shell's spellings too).

/** What a rewind takes back, and whether it overwrites files changed since. */
export interface RewindScope {
  code: boolean;
  conversation: boolean;
  force?: boolean;
}

/** Where words are printed: a hint names the command as it is typed there. */
export interface CommandPlace {
  /** The command that rewinds to checkpoint `name` with `scope`. */
  rewind(name: string, scope: RewindScope): string;
  /** The command that lists the checkpoints. */
  list: string;
}

export const AT_THE_REPL: CommandPlace = {
  rewind: (name, scope) => ["/rewind", name, ...scopeWords(scope, "")].join(" "),
  list: "/rewind",
};

export const IN_THE_SHELL: CommandPlace = {
  rewind: (name, scope) => ["agentloop rewind", name, ...scopeWords(scope, "--")].join(" "),
  list: "agentloop rewind --list",
};

function scopeWords(scope: RewindScope, prefix: string): string[] {
  const words = scope.code === scope.conversation ? [] : [scope.code ? "code" : "conversation"];
  if (scope.force) words.push("force");
  return words.map((word) => `${prefix}${word}`);
}

/** What a rewind takes back, in words. */
export function scopeOf({ code, conversation }: RewindScope): string {
  return code && conversation ? "code and conversation" : code ? "code" : "conversation";
}
