// The web_fetch tool: one URL, read as the page itself (no second model summarises it), one
// part at a time. The name is part of the contract: permission rules and hooks name it.

import type { Tool, ToolOutput } from "../core/tool.js";
import { count } from "../core/wording.js";
import { FetchRefused } from "./checked-address.js";
import { type FetchGate, WEB_FETCH } from "./fetch-gate.js";
import { type FetchOptions, fetchPage } from "./fetch-page.js";
import { CACHE_MINUTES, PageCache } from "./page-cache.js";
import { type PageContent, pageContent, sizeOf } from "./page-content.js";

export type WebFetchInput = { url: string; offset?: number };

/** A page as fetched and converted, kept for its next parts. */
interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  cut: boolean;
  content: PageContent;
}

export interface WebFetchOptions {
  fetch: Omit<FetchOptions, "mayFollowTo">;
  gate: FetchGate;
  /** Characters of a page in one result. */
  pageChars: number;
  /** Where binary downloads are saved. */
  downloads: string;
  /** Told of each fetch that reached a server: what, how big, how long. */
  onFetched(fetched: { url: string; status: number; bytes: number; ms: number }): void;
}

export function createWebFetchTool(options: WebFetchOptions): Tool<WebFetchInput> {
  const cache = new PageCache<FetchedPage>();
  return {
    name: WEB_FETCH,
    description: `Fetch a web page (http or https) and read it: HTML comes back as Markdown with its title, text and JSON as they are, an image as an image, other files saved to disk with their path. Long pages come in parts: the result says which offset continues it; the same url with that offset returns the next part (pages are kept ${CACHE_MINUTES} minutes, so that does not fetch again). Only public internet addresses can be fetched.`,
    inputSchema: {
      type: "object",
      properties: {
        url: { type: "string", description: "The http:// or https:// URL to fetch." },
        offset: {
          type: "integer",
          description: "Where to start in the page's text, from a previous result; default 0.",
        },
      },
      required: ["url"],
      additionalProperties: false,
    },
    // It changes no file; whether its domain may be reached is the gate's question.
    isReadOnly: () => true,
    async run(input, { signal }) {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        return failure(`"${input.url}" is not a URL; give a whole one, like https://example.com/.`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return failure(
          `Only http and https URLs can be fetched; ${url.protocol.replace(/:$/, "")} is not one.`,
        );
      }
      url.hash = "";
      let page = cache.get(url.href);
      if (!page) {
        // @step tool.web_fetch: A page new to this session passes the gate, then is fetched.
        const refusal = await options.gate.admit(url);
        if (refusal !== null) return failure(refusal);
        const fetched = await fetchOnce(url, options, signal);
        if ("failed" in fetched) return failure(fetched.failed);
        page = fetched;
        cache.put(url.href, page);
      }
      return partOf(page, input.offset ?? 0, options);
    },
  };
}

async function fetchOnce(
  url: URL,
  options: WebFetchOptions,
  signal: AbortSignal,
): Promise<FetchedPage | { failed: string }> {
  const started = Date.now();
  const mayFollowTo = (to: URL) => options.gate.allowedQuietly(to);
  try {
    // @step web.fetch: The page is fetched, following redirects only where the gate allows.
    const fetched = await fetchPage(url, { ...options.fetch, mayFollowTo }, signal);
    if (fetched.kind === "elsewhere") {
      return {
        failed: `${url.href} redirects to another host: ${fetched.to.href}. It was not followed; call web_fetch with that URL to fetch it.`,
      };
    }
    const { body, contentType, status, cut } = fetched;
    options.onFetched({
      url: fetched.url.href,
      status,
      bytes: body.length,
      ms: Date.now() - started,
    });
    const content = await pageContent(body, contentType, fetched.url, options.downloads);
    return { url: fetched.url.href, status, contentType, bytes: body.length, cut, content };
  } catch (error) {
    if (error instanceof FetchRefused) return { failed: error.message };
    if (signal.aborted) return { failed: "Interrupted; nothing was fetched." };
    const message = (error as Error).message.replace(/\.?$/, ".");
    return { failed: `Cannot fetch ${url.href}: ${message}` };
  }
}

function partOf(page: FetchedPage, offset: number, options: WebFetchOptions): ToolOutput {
  const type = page.contentType.split(";")[0]?.trim() || "no content type";
  const head = [`${page.url} (HTTP ${page.status}, ${type}, ${sizeOf(page.bytes)})`];
  if (page.cut) {
    head.push(
      `The page is larger than ${sizeOf(options.fetch.maxBytes)}: only its first ${sizeOf(options.fetch.maxBytes)} were downloaded, and what follows is cut there.`,
    );
  }
  const isError = page.status >= 400;
  const { content } = page;
  switch (content.kind) {
    case "image":
      return {
        content: [...head, `An image: ${content.note}.`].join("\n"),
        images: [content.image],
        isError,
      };
    case "file":
      return {
        content: [...head, `Not text: saved to ${content.path}.`].join("\n"),
        isError,
      };
    case "text": {
      const { text } = content;
      if (offset > 0 && offset >= text.length) {
        return failure(
          `Offset ${offset} is past the end of ${page.url} (${count(text.length)} characters).`,
        );
      }
      const end = Math.min(text.length, offset + options.pageChars);
      const title = content.title && offset === 0 ? [`Title: ${content.title}`] : [];
      const more =
        end < text.length
          ? [
              "",
              `[Characters ${count(offset)} to ${count(end)} of ${count(text.length)}. Call web_fetch with the same url and offset ${end} for the next part.]`,
            ]
          : [];
      const from = offset > 0 ? [`From character ${count(offset)}:`] : [];
      const body = [...head, ...title, ...from, "", text.slice(offset, end), ...more];
      return { content: body.join("\n"), isError };
    }
  }
}

const failure = (content: string): ToolOutput => ({ content, isError: true });
