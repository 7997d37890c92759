// The frontmatter of a SKILL.md, a command file or an agent definition (src/agents/): the `---`
// block of YAML at the top. Only the part of YAML these files use is read: `key: value` (plain, quoted, true/false), block
// scalars (`key: >` or `key: |` with indented lines) and lists (`[a, b]` or `- item` lines).

export type FieldValue = string | boolean | string[];

export interface Frontmatter {
  fields: Record<string, FieldValue>;
  /**
   * Each one-line field as written, unquoted: `argument-hint: [file]` is a hint to show, though
   * YAML would read a list.
   */
  written: Record<string, string>;
  /** The text after the closing `---` (all of it when there is no frontmatter). */
  body: string;
}

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*\r?$/m;
const FIELD = /^([A-Za-z][\w-]*):[ \t]*(.*)$/;

/** The fields and body of `text`, or one sentence saying what is wrong with its frontmatter. */
export function parseFrontmatter(source: string): Frontmatter | string {
  const text = source.replace(/^\uFEFF/, "");
  const opening = OPENING.exec(text);
  if (!opening) return { fields: {}, written: {}, body: text };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return "the frontmatter's opening --- has no closing ---";
  const lines = rest.slice(0, closing.index).split(/\r?\n/);
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  const fields: Record<string, FieldValue> = {};
  const written: Record<string, string> = {};
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const field = FIELD.exec(line);
    if (!field) return `frontmatter line ${index + 2} is not "key: value": ${line.trim()}`;
    const [, key = "", value = ""] = field;
    // The indented lines that follow belong to this field (a block scalar or a list).
    const block: string[] = [];
    while (index + 1 < lines.length && /^([ \t]+\S|[ \t]*$|- )/.test(lines[index + 1] as string)) {
      block.push(lines[++index] as string);
    }
    fields[key] = fieldValue(withoutComment(value.trim()), block);
    if (value.trim()) written[key] = unquote(value.trim());
  }
  return { fields, written, body };
}

function fieldValue(value: string, block: string[]): FieldValue {
  const lines = block.map((line) => line.trim());
  if (value === ">" || value === ">-" || value === "|" || value === "|-") {
    const joined = value.startsWith(">") ? lines.join(" ").replace(/\s+/g, " ") : lines.join("\n");
    return joined.trim();
  }
  if (value === "" && lines.some((line) => line.startsWith("- "))) {
    return lines.filter((line) => line.startsWith("- ")).map((line) => unquote(line.slice(2)));
  }
  if (value.startsWith("[") && value.endsWith("]")) {
    return value
      .slice(1, -1)
      .split(",")
      .map((item) => unquote(item.trim()))
      .filter(Boolean);
  }
  // A plain scalar may go on over indented lines.
  const whole = [value, ...lines].filter(Boolean).join(" ");
  if (whole === "true" || whole === "false") return whole === "true";
  return unquote(whole);
}

/** Whether `text` opens with a frontmatter block at all. */
export function hasFrontmatter(text: string): boolean {
  return OPENING.test(text.replace(/^\uFEFF/, ""));
}

/** `key: value # note` loses its note, as in YAML; a # inside quotes stays. */
function withoutComment(value: string): string {
  if (value.startsWith('"') || value.startsWith("'")) return value;
  return value.replace(/\s+#.*$/, "");
}

function unquote(text: string): string {
  const quote = text[0];
  if ((quote === '"' || quote === "'") && text.endsWith(quote) && text.length >= 2) {
    const inner = text.slice(1, -1);
    return quote === "'" ? inner.replaceAll("''", "'") : inner.replaceAll('\\"', '"');
  }
  return text;
}

/** A field read as a string, or undefined when it is missing or not a string. */
export function stringField(fields: Record<string, FieldValue>, key: string): string | undefined {
  const value = fields[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
