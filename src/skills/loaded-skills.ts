// The skills loaded in this session, by the skill tool or by the user's `/name`: a second
// load says so instead of repeating the text, and after a compaction the texts are restated
// beside the summary, most recent first, within a budget (each cut to a share of it), as
// Claude Code re-attaches invoked skills after compacting.

export interface LoadedSkills {
  /** Records that `name` was loaded, with the text the model was given. */
  add(name: string, text: string): void;
  has(name: string): boolean;
  /** The texts restated after a compaction, or null when no skill was loaded. */
  restated(budget: { total: number; each: number }): string | null;
  /** Starts over from `loaded` (skills-in-history.ts): a new or resumed session's. */
  restore(loaded: readonly [name: string, text: string][]): void;
}

export const RESTATED_HEADING =
  "Skills loaded earlier in this session (restated after the summary):";

export function createLoadedSkills(loaded: readonly [string, string][] = []): LoadedSkills {
  // Insertion order; a skill loaded again moves to the end.
  const texts = new Map<string, string>(loaded);
  return {
    add(name, text) {
      texts.delete(name);
      texts.set(name, text);
    },
    has: (name) => texts.has(name),
    restated({ total, each }) {
      if (texts.size === 0) return null;
      let left = total;
      const parts: string[] = [];
      for (const [name, text] of [...texts].reverse()) {
        const room = Math.min(each, left);
        if (room <= 0) {
          parts.push(`(${name} was loaded too; load it again for its text.)`);
          continue;
        }
        const kept =
          text.length > room
            ? `${text.slice(0, room)}\n[cut; load ${name} again for the rest]`
            : text;
        parts.push(kept);
        left -= kept.length;
      }
      return [RESTATED_HEADING, ...parts].join("\n\n");
    },
    restore(again) {
      texts.clear();
      for (const [name, text] of again) texts.set(name, text);
    },
  };
}
