// What a fetched body becomes for the model, by its content type: HTML becomes Markdown with its
// title, text and JSON stay as they came, an image becomes an image part (fitted to the APIs by
// src/images/), and anything else is saved to a file whose path the result names.

import { mkdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ImageBlock } from "../core/messages.js";
import { plural } from "../core/wording.js";
import { prepareImage } from "../images/prepare-image.js";
import { cleanTerminalText } from "../tools/terminal-text.js";

export type PageContent =
  | { kind: "text"; title: string | null; text: string }
  | { kind: "image"; image: ImageBlock; note: string }
  | { kind: "file"; path: string };

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|toml|yaml|x-yaml|x-sh|x-ndjson)\b|application\/[\w.+-]+\+(json|xml)\b)/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/;

/** `directory` is where other binary content is saved (made on the first file). */
export async function pageContent(
  body: Buffer,
  contentType: string,
  url: URL,
  directory: string,
): Promise<PageContent> {
  const type = contentType.trim().toLowerCase();
  const html =
    HTML_TYPES.test(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(ascii(body)));
  if (html) {
    // Loaded with the first page: web_fetch is offered to most sessions, which fetch none.
    const { htmlToMarkdown } = await import("./html-markdown.js");
    const page = htmlToMarkdown(decodeText(body, type));
    return { kind: "text", title: page.title, text: cleanTerminalText(page.markdown) };
  }
  if (TEXT_TYPES.test(type) || (type === "" && !body.subarray(0, 4096).includes(0))) {
    return { kind: "text", title: null, text: cleanTerminalText(decodeText(body, type)) };
  }
  if (type.startsWith("image/")) {
    const checked = await prepareImage(body);
    if (checked.ok) {
      const { original, resized } = checked.prepared;
      const size = `${original.format} ${original.width}×${original.height}`;
      const note = resized ? `${size}, scaled to ${resized.width}×${resized.height}` : size;
      return { kind: "image", image: checked.prepared.image, note };
    }
  }
  return { kind: "file", path: await saved(body, url, directory) };
}

/** The body as text in the charset its content type names (UTF-8 when none, or unknown). */
function decodeText(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)/.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

const ascii = (body: Buffer) => body.subarray(0, 512).toString("latin1");

let saves = 0;

/** Saved under a name taken from the URL's last path segment, numbered so none is replaced. */
async function saved(body: Buffer, url: URL, directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const last = basename(url.pathname).replace(/[^\w.-]+/g, "_");
  saves += 1;
  const path = join(directory, `${saves}-${last === "" || last === "_" ? "download" : last}`);
  await writeFile(path, body);
  return path;
}

/** "12 KB", for the result's first line. */
export function sizeOf(bytes: number): string {
  if (bytes < 1024) return plural(bytes, "byte");
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
