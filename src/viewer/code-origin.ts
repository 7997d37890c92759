// Whether the code the page shows beside each step is the code that wrote the session. The
// excerpts travel with the viewer (collected from its own source when it was built); the
// session's header names the build that wrote it. Same source id: exact. Another build whose
// excerpts were kept beside the sessions: those, exact too. Otherwise the page shows this
// build's excerpts, the nearest it has, and says so.

import type { StepSource, StepSources } from "../core/step-sources.js";
import type { SessionHeader } from "../session/session-file.js";

export interface CodeBeside {
  /** The excerpts, by the key of their `// @step KEY:` anchor. */
  sources: Record<string, StepSource>;
  /** True when the session was written by the very source these excerpts come from. */
  exact: boolean;
  /** One sentence for the reader: whose code this is. */
  origin: string;
}

/**
 * `kept(source)`: the step sources of build `source` if they were kept beside the sessions
 * (session/source-archive.ts), else null.
 */
export function codeBeside(
  header: SessionHeader | null,
  table: StepSources,
  kept: (source: string) => StepSources | null,
): CodeBeside {
  const named = (sources: StepSources) => `agentloop ${sources.version}, source ${sources.id}`;
  // Read leniently: a damaged or hand-edited header may hold anything here.
  const writer = header?.agentloop;
  const source = typeof writer?.source === "string" ? writer.source : null;
  const version = typeof writer?.version === "string" ? writer.version : null;
  if (source === table.id) {
    return {
      sources: table.sources,
      exact: true,
      origin: `The code beside each step is the code that wrote this session (${named(table)}).`,
    };
  }
  const keptSources = source === null ? null : kept(source);
  if (keptSources) {
    return {
      sources: keptSources.sources,
      exact: true,
      origin: `The code beside each step is the code that wrote this session (${named(keptSources)}), kept beside the session files; this viewer is ${named(table)}.`,
    };
  }
  const written = version
    ? `This session was written by agentloop ${version}${source ? `, source ${source}` : " run from its source files"}`
    : "This session was written before agentloop recorded which version wrote it";
  return {
    sources: table.sources,
    exact: false,
    origin: `${written}. The code beside each step is approximate: it is the nearest this viewer has (${named(table)}), and lines may have moved or changed since.`,
  };
}
