// What a new session is told of its memory: how to use the memory tool, and the head of the
// index. As in Claude Code's auto memory, "the first 200 lines of MEMORY.md, or the first 25KB,
// whichever comes first, are loaded at the start of every conversation"
// (https://docs.claude.com/en/docs/claude-code/memory, "Auto memory"); the topic files are read
// when needed. An index past that budget is consolidated (consolidation.ts).

export const INDEX_BUDGET = { lines: 200, bytes: 25_000 };

export interface IndexHead {
  text: string;
  lines: number;
  bytes: number;
  /** Lines of the index left out. */
  cut: number;
}

/** The first whole lines of `index` within the budget. */
export function indexHead(index: string): IndexHead {
  const all = index.replace(/\n+$/, "").split("\n");
  const kept: string[] = [];
  let bytes = 0;
  for (const line of all) {
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (kept.length === INDEX_BUDGET.lines || bytes + size > INDEX_BUDGET.bytes) break;
    kept.push(line);
    bytes += size;
  }
  return {
    text: kept.join("\n"),
    lines: kept.length,
    bytes,
    cut: index.trim() === "" ? 0 : all.length - kept.length,
  };
}

export function overBudget(index: string): boolean {
  return indexHead(index).cut > 0;
}

export function memorySection(head: IndexHead, indexPath: string): string {
  const about = [
    "# Memory from earlier sessions",
    `You keep a memory of this project across sessions with the memory tool: add an entry (one line, with a topic such as preferences, project or corrections) when the user states a preference, corrects you, or you learn a fact about the project that a later session would need; update or forget an entry that turns out wrong. Never store secrets. Read a topic's file with action "read". The index is ${indexPath}.`,
  ];
  if (head.text === "") return [...about, "Nothing is remembered yet."].join("\n");
  const cut =
    head.cut > 0
      ? [`(${head.cut} more lines of the index are not shown here; read the topic files.)`]
      : [];
  return [...about, "", head.text, ...cut].join("\n");
}
