// The YAML frontmatter of an agent definition: the part between the first two `---` lines.
// Only what definitions use is read: `key: value` (quoted or not), a list in brackets
// (`[read, bash]`) or as `- item` lines below the key, and `>`/`|` blocks joined into one line.

export type FrontmatterValue = string | string[];

export type Frontmatter =
  | { fields: Record<string, FrontmatterValue>; body: string }
  | { problem: string };

export function parseFrontmatter(text: string): Frontmatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { problem: "it does not start with a --- line" };
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
  if (end === -1) return { problem: "its frontmatter has no closing --- line" };
  const fields: Record<string, FrontmatterValue> = {};
  let listKey: string | null = null;
  let blockKey: string | null = null;
  for (const [index, line] of lines.slice(1, end).entries()) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? (listKey ? /^-\s*(.*)$/.exec(line) : null);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquoted(item[1] as string));
      continue;
    }
    if (blockKey && /^\s+\S/.test(line)) {
      fields[blockKey] = `${fields[blockKey] as string} ${line.trim()}`.trim();
      continue;
    }
    listKey = blockKey = null;
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) return { problem: `frontmatter line ${index + 2} is not "key: value"` };
    const key = pair[1] as string;
    const value = withoutComment((pair[2] as string).trim());
    if (value === "") {
      fields[key] = [];
      listKey = key;
    } else if (value === ">" || value === "|" || value === ">-" || value === "|-") {
      fields[key] = "";
      blockKey = key;
    } else if (value.startsWith("[") && value.endsWith("]")) {
      fields[key] = splitList(value.slice(1, -1));
    } else {
      fields[key] = unquoted(value);
    }
  }
  return {
    fields,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** A value given as a list, or as one comma-separated string (`tools: Read, Grep`). */
export function listOf(value: FrontmatterValue | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.filter(Boolean) : splitList(value);
}

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((part) => unquoted(part.trim()))
    .filter(Boolean);
}

function unquoted(text: string): string {
  const quoted = /^"(.*)"$/.exec(text) ?? /^'(.*)'$/.exec(text);
  return quoted ? (quoted[1] as string) : text;
}

/** `key: value # note` loses its note; a # inside quotes stays. */
function withoutComment(value: string): string {
  if (value.startsWith('"') || value.startsWith("'")) return value;
  return value.replace(/\s+#.*$/, "");
}
