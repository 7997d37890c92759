// Folders that add skills, custom commands, agents, hooks and MCP servers beside the person's
// own places: an enabled plugin's (src/plugins/). A chapter that brings such folders hands them
// to the session through its entry in the list (`componentSources` in src/assembly/parts.ts),
// before any part starts; the skills, agents, hooks and MCP parts read them from here as one
// more place each, without knowing which chapter added them. What a source adds is the person's
// own: they installed it, and approved what its hooks and servers run as they did.

export interface ComponentSource {
  /** Put before the name of each skill, command and agent it adds: `demo:` makes `demo:review`. */
  prefix: string;
  /** Its folder: every file it names is read only where it leads inside it (core/own-file.ts). */
  root: string;
  /** Folders of skills (`NAME/SKILL.md`), of custom commands and of agent definitions (`*.md`). */
  skills: readonly string[];
  commands: readonly string[];
  agents: readonly string[];
  /** Hooks in the settings' shape (`{"hooks": {...}}`), each with the file it came from. */
  hooks: readonly { file: string; settings: Record<string, unknown> }[];
  /** MCP servers as `{name: definition}`, already named as the session knows them. */
  mcpServers: readonly { file: string; servers: Record<string, unknown> }[];
  /**
   * Variables its hooks and servers find in their environment and have expanded in their
   * commands (a plugin's CLAUDE_PLUGIN_ROOT); asked for only by a source that runs something,
   * since making them may make a folder.
   */
  variables(): Record<string, string>;
}

export interface ComponentSources {
  sources: readonly ComponentSource[];
  /** One sentence for each source that is not read, and why (said once, with the skills'). */
  problems: readonly string[];
}

export const NO_COMPONENT_SOURCES: ComponentSources = { sources: [], problems: [] };

/** `text` with each `${NAME}` of `variables` replaced by its value; any other `${...}` stays. */
export function expandVariables(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] as string) : whole,
  );
}
