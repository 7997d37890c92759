// Finding old_string in a file for the edit tool, and, when it is not there, saying why in
// terms a model can act on: the same text with other whitespace, line endings or case (and
// where), or else the lines of the file that look most like it (similar-lines.ts). Everything
// here works on JavaScript strings, so offsets and lengths are always in the same units.

import { describeSimilarLines } from "./similar-lines.js";

/** Where `needle` starts in `text`, overlapping occurrences included ("aa" is twice in "aaa"). */
export function findOccurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    starts.push(at);
  }
  return starts;
}

/** The 1-based line that `index` falls on. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) {
    line++;
  }
  return line;
}

/** "line 4", "lines 4 and 9", "lines 1, 2, 3, ... (40 in all)". */
export function describeLines(lines: readonly number[]): string {
  const distinct = [...new Set(lines)];
  if (distinct.length === 1) return `line ${distinct[0]}`;
  if (distinct.length <= 10) {
    return `lines ${distinct.slice(0, -1).join(", ")} and ${distinct.at(-1)}`;
  }
  return `lines ${distinct.slice(0, 10).join(", ")}, ... (${distinct.length} in all)`;
}

/**
 * Sentences to follow "old_string was not found": what differs when the text is nearly there,
 * else the most similar lines with their numbers, so the next attempt can copy them exactly.
 */
export function explainMiss(text: string, needle: string): string {
  if (text === "") return "The file is empty; use the write tool to give it content.";
  return (
    lineNumberHint(text, needle) ??
    lineEndingHint(text, needle) ??
    lineDifferenceHint(text, needle) ??
    describeSimilarLines(text, needle)
  );
}

// --- near misses --------------------------------------------------------------------------------

/** Lines copied from a numbered listing ("  12\tcode", "12→code") carry their numbers along. */
const LISTING_PREFIX = /^ *\d+(?:\t|→|│|\|) ?/;

function lineNumberHint(text: string, needle: string): string | null {
  const lines = needle.split("\n");
  const numbered = lines.filter((line) => LISTING_PREFIX.test(line)).length;
  if (numbered === 0 || numbered < lines.filter((line) => line !== "").length) return null;
  const stripped = lines.map((line) => line.replace(LISTING_PREFIX, "")).join("\n");
  const at = text.indexOf(stripped);
  if (stripped === "" || at === -1) return null;
  return `old_string starts its lines with line numbers, as in a listing; without them it matches at ${describeLines([lineAt(text, at)])}. Leave the numbers out.`;
}

/** Only a file that mixes line endings is matched as it is (the edit tool evens out the rest). */
function lineEndingHint(text: string, needle: string): string | null {
  if (!text.includes("\r\n")) return null;
  const lf = (s: string) => s.replaceAll("\r\n", "\n");
  const at = lf(text).indexOf(lf(needle));
  if (at === -1) return null;
  return `The file mixes \\n and \\r\\n line endings, and old_string matches at ${describeLines([lineAt(lf(text), at)])} only if they are ignored; end each line of old_string as the file does there.`;
}

interface LineNormalisation {
  /** What the text differs in when only this normalisation makes it match. */
  differsIn: string;
  normalise(line: string): string;
}

const NORMALISATIONS: LineNormalisation[] = [
  { differsIn: "trailing whitespace (at the ends of lines)", normalise: (line) => line.trimEnd() },
  { differsIn: "indentation", normalise: (line) => line.trim() },
  { differsIn: "whitespace", normalise: (line) => line.replace(/\s+/g, " ").trim() },
  { differsIn: "upper and lower case", normalise: (line) => line.toLowerCase() },
];

/**
 * Tries each normalisation line by line (each keeps the number of lines, so line numbers hold)
 * and, at the first that matches, shows the first line that differs, quoted so that tabs,
 * trailing spaces and \r are visible.
 */
function lineDifferenceHint(text: string, needle: string): string | null {
  const fileLines = text.split("\n");
  const needleLines = needle.split("\n");
  for (const { differsIn, normalise } of NORMALISATIONS) {
    const normalText = fileLines.map(normalise).join("\n");
    const normalNeedle = needleLines.map(normalise).join("\n");
    if (normalNeedle.trim() === "") continue;
    const at = normalText.indexOf(normalNeedle);
    if (at === -1) continue;
    const first = lineAt(normalText, at);
    const covered = fileLines.slice(first - 1, first - 1 + needleLines.length);
    const offset = firstDifferingLine(covered, needleLines);
    const detail =
      offset === null
        ? ""
        : `, first at line ${first + offset}: the file has ${quote(covered[offset] ?? "")} where old_string has ${quote(needleLines[offset] ?? "")}`;
    const kind =
      offset === null ? null : indentKinds(covered[offset] ?? "", needleLines[offset] ?? "");
    const what = kind
      ? `indentation (the file indents with ${kind.file}, old_string with ${kind.own})`
      : differsIn;
    return `old_string differs from the text at ${describeLines([first])} only in ${what}${detail}. Copy the file's text exactly.`;
  }
  return null;
}

/** The first needle line that does not appear as such in the file lines it was matched with. */
function firstDifferingLine(fileLines: string[], needleLines: string[]): number | null {
  const last = needleLines.length - 1;
  for (let i = 0; i <= last; i++) {
    const file = fileLines[i] ?? "";
    const own = needleLines[i] ?? "";
    // old_string may begin in the middle of a line and end in the middle of another.
    const same =
      last === 0
        ? file.includes(own)
        : i === 0
          ? file.endsWith(own)
          : i === last
            ? file.startsWith(own)
            : file === own;
    if (!same) return i;
  }
  return null;
}

/** Tabs against spaces, when that is how two lines' indentation differs. */
function indentKinds(fileLine: string, ownLine: string): { file: string; own: string } | null {
  const kind = (line: string) => {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
    if (indent === "") return null;
    return indent.includes("\t") ? (indent.includes(" ") ? "tabs and spaces" : "tabs") : "spaces";
  };
  const file = kind(fileLine);
  const own = kind(ownLine);
  return file && own && file !== own ? { file, own } : null;
}

function quote(line: string): string {
  const shown = line.length > 120 ? `${line.slice(0, 120)}...` : line;
  return JSON.stringify(shown);
}
