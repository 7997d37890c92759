// The text of a file that looks most like an old_string the edit tool did not find, so the
// model can copy it exactly: the closest lines for a one-line old_string, the closest blocks
// for a longer one. The edit distances behind it are bounded and share a budget of work, so a
// large file of lines that are all unlike old_string still answers in about a second.
// levenshtein also tells the read tool which file names are alike (closest-names.ts).

const MAX_SHOWN_LINES = 12;
const MIN_SIMILARITY = 0.5;
/** Lines longer than this are compared by their start: enough to tell them apart. */
const COMPARED_CHARS = 100;
/** Lines of old_string that take part in finding similar text: its start says where it is. */
const COMPARED_NEEDLE_LINES = 20;
/** A block is looked for through its longest lines: short ones ("}") are everywhere. */
const ANCHORS = 3;
const PLACES_PER_ANCHOR = 10;
/**
 * Cells of edit-distance tables computed before the search gives up (about a second): a large
 * file of lines that are all equally unlike old_string would otherwise take many seconds.
 */
const BUDGET_CELLS = 60_000_000;

/** What is left of the budget; the distance functions take from it. */
export interface Work {
  cells: number;
}

interface Search {
  places: Place[];
  /** How many lines, from the first, were compared before the budget ran out. */
  searched: number;
}

interface Place {
  /** 1-based line where the similar text starts. */
  line: number;
  lineCount: number;
  similarity: number;
}

export function describeSimilarLines(text: string, needle: string): string {
  // The empty "line" after a final newline is not one the file has.
  const fileLines = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
  const needleLines = trimBlankLines(needle.split("\n"));
  if (needleLines.length === 0) return "old_string holds only whitespace.";
  const work: Work = { cells: BUDGET_CELLS };
  const { places, searched } =
    needleLines.length === 1
      ? similarLines(fileLines, needleLines[0] ?? "", work)
      : similarBlocks(fileLines, needleLines.slice(0, COMPARED_NEEDLE_LINES), work);
  const unsearched =
    searched < fileLines.length
      ? ` (the file is too long to compare in full; lines after ${searched} were not compared)`
      : "";
  if (places.length === 0) {
    return `No part of the file looks like it${unsearched}; read the file again to see what it holds now.`;
  }
  const shown: string[] = [];
  for (const [index, place] of places.entries()) {
    const count = Math.min(place.lineCount, MAX_SHOWN_LINES - shown.length);
    if (count <= 0) break;
    if (index > 0 && place.lineCount > 1) shown.push("...");
    for (let line = place.line; line < place.line + count; line++) {
      shown.push(`${String(line).padStart(6)}\t${fileLines[line - 1]}`);
    }
  }
  return `The most similar text in the file${unsearched}, numbered as by read:\n${shown.join("\n")}\nCopy old_string exactly from the file.`;
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.trim() === "") start++;
  while (end > start && lines[end - 1]?.trim() === "") end--;
  return lines.slice(start, end);
}

/** A one-line old_string may be part of a line: the three lines that hold the closest text. */
function similarLines(fileLines: string[], needle: string, work: Work): Search {
  const wanted = needle.trim().slice(0, COMPARED_CHARS);
  const limit = Math.floor(wanted.length * (1 - MIN_SIMILARITY));
  const { found, searched } = nearest(fileLines, 3, limit, work, (line, bound) =>
    substringDistance(wanted, line.slice(0, COMPARED_CHARS * 2), bound, work),
  );
  const places = found.map(({ index, distance }) => ({
    line: index + 1,
    lineCount: 1,
    similarity: 1 - distance / wanted.length,
  }));
  return { places, searched };
}

/**
 * A block of lines: the file lines nearest to its longest lines say where it may start; each
 * such window is scored by the edit distance of every line pair (indentation aside) against
 * their length. The two best windows that do not overlap.
 */
function similarBlocks(fileLines: string[], needleLines: string[], work: Work): Search {
  const wanted = needleLines.map((line) => line.trim().slice(0, COMPARED_CHARS));
  const trimmed = fileLines.map((line) => line.trim().slice(0, COMPARED_CHARS));
  const anchors = wanted
    .map((line, offset) => ({ line, offset }))
    .sort((a, b) => b.line.length - a.line.length)
    .slice(0, ANCHORS);
  const starts = new Set<number>();
  let searched = trimmed.length;
  for (const [index, anchor] of anchors.entries()) {
    // Each anchor gets its share, so the first cannot leave the others nothing.
    const share: Work = { cells: work.cells / (anchors.length - index) };
    work.cells -= share.cells;
    const limit = Math.floor(anchor.line.length * (1 - MIN_SIMILARITY));
    const nearby = nearest(trimmed, PLACES_PER_ANCHOR, limit, share, (line, bound) =>
      levenshtein(anchor.line, line, bound, share),
    );
    work.cells += Math.max(0, share.cells);
    for (const { index } of nearby.found) {
      starts.add(Math.max(0, Math.min(index - anchor.offset, trimmed.length - wanted.length)));
    }
    searched = Math.min(searched, nearby.searched);
  }

  const scored: Place[] = [];
  for (const start of starts) {
    let distance = 0;
    let length = 0;
    wanted.forEach((own, j) => {
      const line = trimmed[start + j] ?? "";
      const longest = Math.max(own.length, line.length);
      // Beyond this a pair of lines counts as unlike, whatever the exact distance.
      const bound = Math.ceil(longest * (1 - MIN_SIMILARITY));
      distance += Math.min(levenshtein(own, line, bound), longest);
      length += longest;
    });
    const similarity = length === 0 ? 1 : 1 - distance / length;
    if (similarity >= MIN_SIMILARITY) {
      scored.push({ line: start + 1, lineCount: wanted.length, similarity });
    }
  }
  scored.sort((a, b) => b.similarity - a.similarity || a.line - b.line);
  const places: Place[] = [];
  for (const place of scored) {
    const overlaps = places.some(
      (taken) =>
        place.line < taken.line + taken.lineCount && taken.line < place.line + place.lineCount,
    );
    if (!overlaps) places.push(place);
    if (places.length === 2) break;
  }
  return { places, searched };
}

/**
 * The `count` lines at the smallest distance (at most `limit`), nearest first, earlier first
 * among equals. Once `count` are found, only a nearer line is worth measuring, so the bound
 * passed to `distance` tightens and most lines are given up on after a few characters.
 */
function nearest(
  lines: string[],
  count: number,
  limit: number,
  work: Work,
  distance: (line: string, bound: number) => number,
): { found: { index: number; distance: number }[]; searched: number } {
  const found: { index: number; distance: number }[] = [];
  for (const [index, line] of lines.entries()) {
    if (work.cells <= 0) return { found, searched: index };
    const worst = found.length < count ? limit : (found.at(-1)?.distance ?? 0) - 1;
    if (worst < 0) break;
    const d = distance(line, worst);
    if (d > worst) continue;
    const at = found.findIndex((other) => other.distance > d);
    found.splice(at === -1 ? found.length : at, 0, { index, distance: d });
    if (found.length > count) found.pop();
  }
  return { found, searched: lines.length };
}

/**
 * The edit distance between `a` and `b`, or `limit + 1` when it is larger. Only the cells within
 * `limit` of the diagonal can stay within the limit, so only those are computed, and a row
 * whose every cell is bound to end above the limit ends the work.
 */
export function levenshtein(
  a: string,
  b: string,
  limit = Number.POSITIVE_INFINITY,
  work?: Work,
): number {
  if (a === b) return 0;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.length - short.length > limit) return limit + 1;
  const band = Math.min(limit, long.length);
  const beyond = band + 1;
  let previous = new Uint32Array(long.length + 1);
  let current = new Uint32Array(long.length + 1);
  for (let j = 0; j <= long.length; j++) previous[j] = j <= band ? j : beyond;
  for (let i = 1; i <= short.length; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(long.length, i + band);
    current[from - 1] = from === 1 && i <= band ? i : beyond;
    let rowMin = beyond;
    const code = short.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const diagonal = (previous[j - 1] as number) + (code === long.charCodeAt(j - 1) ? 0 : 1);
      const value = Math.min(
        diagonal,
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        beyond,
      );
      current[j] = value;
      // What is left of the two strings differs in length by this much, at the least.
      const promised = value + Math.abs(long.length - j - (short.length - i));
      if (promised < rowMin) rowMin = promised;
    }
    if (to < long.length) current[to + 1] = beyond;
    if (work) work.cells -= to - from + 1;
    if (rowMin > band) return limit + 1;
    [previous, current] = [current, previous];
  }
  const distance = previous[long.length] as number;
  return distance > band ? limit + 1 : distance;
}

/**
 * The fewest edits that turn `needle` into some part of `line` (it may sit inside the line),
 * or `limit + 1` when that is more.
 */
export function substringDistance(
  needle: string,
  line: string,
  limit = Number.POSITIVE_INFINITY,
  work?: Work,
): number {
  if (line.includes(needle)) return 0;
  if (needle.length - line.length > limit) return limit + 1;
  let previous = new Uint32Array(line.length + 1);
  let current = new Uint32Array(line.length + 1);
  for (let i = 1; i <= needle.length; i++) {
    current[0] = i;
    let rowMin = i;
    const code = needle.charCodeAt(i - 1);
    for (let j = 1; j <= line.length; j++) {
      const diagonal = (previous[j - 1] as number) + (code === line.charCodeAt(j - 1) ? 0 : 1);
      const value = Math.min(diagonal, (previous[j] as number) + 1, (current[j - 1] as number) + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (work) work.cells -= line.length;
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  let best = needle.length;
  for (const value of previous) best = Math.min(best, value);
  return best > limit ? limit + 1 : best;
}
