// The judge's verdict, read from its text: one JSON object {"met", "impossible", "reason"}.
// The text may wrap the object in a code fence or a sentence; anything else is not a verdict,
// and a problem that says what was wrong goes back to the judge once.

export interface Verdict {
  met: boolean;
  impossible: boolean;
  reason: string;
}

/** The longest reason kept: it is shown to the person and sent to the model. */
const MAX_REASON_CHARS = 1000;

export const VERDICT_SHAPE = '{"met": true|false, "impossible": true|false, "reason": "..."}';

/** The verdict in `text`, or a sentence saying why there is none. */
export function readVerdict(text: string): Verdict | { problem: string } {
  const object = firstObject(text);
  if (object === null) return { problem: "the answer held no JSON object" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(object);
  } catch {
    return { problem: "the answer's JSON object could not be parsed" };
  }
  const { met, impossible, reason } = parsed as Record<string, unknown>;
  if (typeof met !== "boolean" || typeof impossible !== "boolean") {
    return { problem: '"met" and "impossible" must both be true or false' };
  }
  if (typeof reason !== "string" || reason.trim() === "") {
    return { problem: '"reason" must be a sentence' };
  }
  const kept = reason.trim();
  return {
    // Met and impossible at once is no verdict of met: it never ends the run as done.
    met: met && !impossible,
    impossible,
    reason: kept.length > MAX_REASON_CHARS ? `${kept.slice(0, MAX_REASON_CHARS)}…` : kept,
  };
}

/** The text from the first "{" to the last "}", which holds the object with or without a fence. */
function firstObject(text: string): string | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start === -1 || end < start ? null : text.slice(start, end + 1);
}
