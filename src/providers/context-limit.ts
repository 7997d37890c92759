// The context window a server names when it refuses a request as too long. Each server words
// it its own way; the numbers are what compaction needs to fit the next request.

const WINDOW_PATTERNS: RegExp[] = [
  // Anthropic: "prompt is too long: 208934 tokens > 200000 maximum"
  /tokens > (\d+) maximum/,
  // Anthropic: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"
  /exceed context limit: \d+ \+ \d+ > (\d+)/,
  // OpenAI and vLLM: "This model's maximum context length is 128000 tokens."
  /maximum context length is (\d+)/i,
  // llama.cpp: "request (4476 tokens) exceeds the available context size (4096 tokens)"
  /available context size \((\d+) tokens\)/i,
  // LM Studio: "the model is loaded with context length of only 4096 tokens"
  /context length of only (\d+)/i,
  // LM Studio and llama.cpp: "(n_keep: 13055>= n_ctx: 4096)", "n_keep (15028) >= n_ctx (7424)"
  /n_ctx\W{0,3}(\d+)/i,
  // vLLM: "is too long to fit into the model (context length 4096)"
  /\(context length (\d+)\)/i,
];

/** The window in tokens named in a server's "too long" message, if it names one. */
export function contextWindowIn(message: string): number | undefined {
  for (const pattern of WINDOW_PATTERNS) {
    const found = message.match(pattern)?.[1];
    if (found) return Number(found);
  }
  return undefined;
}
