// A list of names with what each is for, kept within a budget of characters because it goes
// into every request: the skills' catalog in the system prompt, the agents in the agent tool's
// description. The long descriptions are shortened first, sharing the room equally; when even
// that leaves none, the descriptions go and the names stay. A list that must stay within the
// budget whatever it holds drops the last names too, and its last line says how many.

export interface ListEntry {
  /** The start of the line, kept whole: `- review`. */
  head: string;
  description: string;
  /** The end of the line, kept whole: ` (.agentloop/skills/review/SKILL.md)`. */
  tail?: string;
}

/**
 * The lines `head: description tail` (or `head tail`), with the newlines between them within
 * `budget` characters whenever the heads and tails alone fit. Without `unlisted`, every head
 * is kept, even past the budget; with it, the last entries that do not fit are left out and
 * `unlisted(count)` is the line that says so.
 */
export function fitDescriptions(
  entries: readonly ListEntry[],
  budget: number,
  unlisted?: (count: number) => string,
): string[] {
  const bare = (entry: ListEntry) => `${entry.head}${entry.tail ?? ""}`;
  const kept = unlisted ? entriesThatFit(entries.map(bare), budget, unlisted) : entries.length;
  if (kept < entries.length) {
    const left = entries.length - kept;
    return [...entries.slice(0, kept).map(bare), (unlisted as (count: number) => string)(left)];
  }
  const lines = entries.map((entry) => ({ ...entry, description: oneLine(entry.description) }));
  const fixed = lines.reduce((sum, line) => sum + 1 + bare(line).length, 0);
  // ": " before each description comes out of the room left for them.
  const cap = descriptionCap(
    lines.map((line) => line.description.length),
    budget - fixed - 2 * lines.length,
  );
  return lines.map(({ head, description, tail = "" }) => {
    if (cap <= 0) return `${head}${tail}`;
    const cut =
      description.length > cap ? `${description.slice(0, cap - 1).trimEnd()}…` : description;
    return `${head}: ${cut}${tail}`;
  });
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** How many of the bare lines, from the first, fit in `budget` with the line saying how many did not. */
function entriesThatFit(
  bare: string[],
  budget: number,
  unlisted: (count: number) => string,
): number {
  const all = bare.reduce((sum, line) => sum + 1 + line.length, 0);
  if (all <= budget) return bare.length;
  // The longest the closing line can be: its count has at most as many digits as the whole.
  let left = budget - 1 - unlisted(bare.length).length;
  let kept = 0;
  for (const line of bare) {
    left -= 1 + line.length;
    if (left < 0) break;
    kept++;
  }
  return kept;
}

/**
 * The longest a description may be so that all of them fit in `room` characters: short ones
 * keep their length and the long ones share what is left equally.
 */
function descriptionCap(lengths: number[], room: number): number {
  if (room <= 0) return 0;
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = room;
  for (const [index, length] of sorted.entries()) {
    const share = Math.floor(left / (sorted.length - index));
    if (length > share) return share;
    left -= length;
  }
  return Number.POSITIVE_INFINITY;
}
