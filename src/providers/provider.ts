// The Provider seam: one file per wire protocol in this folder turns a request into a stream
// of events and a final reply. Its types live in src/core/provider.ts, below the parts that
// send requests of their own (a compaction's summary, a subagent's loop).

export type * from "../core/provider.js";
