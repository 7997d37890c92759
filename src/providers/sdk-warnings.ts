// The model SDKs warn on the console about what they notice as they send (the Anthropic SDK:
// a model near its end of life, on every request). Printed there, a warning lands in the
// middle of an answer; agentloop takes it as a notice instead, said once per session.

/** Runs `send` with the console's warnings going to `notice`; `send` must not wait. */
export function withSdkWarnings<T>(notice: (sentence: string) => void, send: () => T): T {
  const warn = console.warn;
  console.warn = (...parts: unknown[]) => notice(ourWords(parts.map(String).join(" ")));
  try {
    return send();
  } finally {
    console.warn = warn;
  }
}

/** A notice function that passes each distinct sentence on once. */
export function onceEach(notice: ((sentence: string) => void) | undefined) {
  const said = new Set<string>();
  return (sentence: string) => {
    if (said.has(sentence)) return;
    said.add(sentence);
    notice?.(sentence);
  };
}

const DEPRECATED = /^The model '(.+?)' is deprecated and will reach end-of-life on (.+?)\n/;

/** The SDK's deprecation warning in one line; any other warning as its first line. */
function ourWords(warning: string): string {
  const deprecated = DEPRECATED.exec(warning);
  if (deprecated) {
    return `${deprecated[1]} reaches end of life on ${deprecated[2]}; see https://docs.anthropic.com/en/docs/resources/model-deprecations for its successor.`;
  }
  return warning.split("\n")[0] ?? warning;
}
