// A model of Anthropic's prompt cache, good enough to tell whether cache breakpoints are
// placed usefully. The prompt is a sequence of blocks (tools, system, message blocks); a
// breakpoint caches the prefix ending at its block; a later request reads the longest cached
// prefix found at its breakpoints or up to 20 blocks before each. (The real minimum cacheable
// length is ignored, and a token is four characters.)

import { createHash } from "node:crypto";

const LOOKBACK_BLOCKS = 20;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

interface PromptBody {
  tools?: unknown[];
  system?: unknown;
  messages: { content: unknown }[];
}

/**
 * The request's whole input in tokens, as account() splits it: every block of tools, system
 * and messages, four characters of its JSON (without cache_control) to a token.
 */
export function countTokens(body: PromptBody): number {
  let total = 0;
  for (const block of promptBlocks(body)) total += Math.ceil(blockText(block).length / 4);
  return total;
}

export class PromptCache {
  readonly #prefixes = new Set<string>();

  /** Reports how the request's input tokens split into uncached, written and read. */
  account(body: PromptBody): CacheUsage {
    const blocks = promptBlocks(body);
    const keys: string[] = [];
    const tokens: number[] = [];
    let key = "";
    let total = 0;
    for (const block of blocks) {
      const text = blockText(block);
      key = createHash("sha256").update(key).update(text).digest("hex");
      total += Math.ceil(text.length / 4);
      keys.push(key);
      tokens.push(total);
    }
    const breakpoints = blocks.flatMap((block, index) => (block.cache_control ? [index] : []));
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (let i = breakpoint; i >= 0 && i > breakpoint - LOOKBACK_BLOCKS; i -= 1) {
        if (this.#prefixes.has(keys[i] as string)) {
          read = Math.max(read, tokens[i] as number);
          break;
        }
      }
    }
    const last = breakpoints.at(-1);
    const written = last === undefined ? 0 : Math.max(0, (tokens[last] as number) - read);
    for (const breakpoint of breakpoints) this.#prefixes.add(keys[breakpoint] as string);
    return {
      input_tokens: total - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
    };
  }
}

type PromptBlock = Record<string, unknown> & { cache_control?: unknown };

function blockText(block: PromptBlock): string {
  const { cache_control: _, ...content } = block;
  return JSON.stringify(content);
}

function promptBlocks(body: PromptBody): PromptBlock[] {
  const asBlocks = (content: unknown): PromptBlock[] =>
    typeof content === "string" ? [{ type: "text", text: content }] : (content as PromptBlock[]);
  return [
    ...((body.tools ?? []) as PromptBlock[]),
    ...(body.system === undefined ? [] : asBlocks(body.system)),
    ...body.messages.flatMap((message) => asBlocks(message.content)),
  ];
}
