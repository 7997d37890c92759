// Turns what an MCP tool returned into what the model reads: text parts as they are,
// structured content as JSON when there is no text, resources by their text and URI, images
// as images (checked and fitted to the APIs' limits like those `read` sends, with a line each
// in the text), and audio and binary resources as a one-line note. Long text is cut in the
// middle like bash output, with the whole of it saved to a file named in the result.

import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ImageBlock } from "../core/messages.js";
import { count, plural } from "../core/wording.js";
import { describePrepared, prepareImage } from "../images/prepare-image.js";
import { firstChars, lastChars, type Saved, showCut } from "../tools/output-capture.js";
import { cleanTerminalText } from "../tools/terminal-text.js";
import { countLines } from "../tools/text-lines.js";
import type { ToolOutput } from "../tools/tool.js";

export interface ResultBounds {
  /** Characters the model is shown at most: half from the start, half from the end. */
  maxChars: number;
  /** Where the whole text goes when it is cut. */
  outputDirectory: string;
  /** The tool's name, which starts the saved file's name. */
  toolName: string;
}

export const DEFAULT_MAX_RESULT_CHARS = 50_000;

export async function describeResult(
  result: CallToolResult,
  bounds: ResultBounds,
): Promise<ToolOutput> {
  const images: ImageBlock[] = [];
  const notes = new Map<ContentBlock, string>();
  for (const [index, block] of result.content.entries()) {
    if (block.type !== "image") continue;
    const checked = await prepareImage(Buffer.from(block.data, "base64"));
    const name = `image ${index + 1}`;
    if (checked.ok) images.push(checked.prepared.image);
    notes.set(
      block,
      checked.ok
        ? `[${describePrepared(name, checked.prepared)}]`
        : `[${name} (${block.mimeType}) is not sent: ${checked.reason}]`,
    );
  }
  const text = bounded(resultText(result, notes), bounds);
  return { content: text, ...(images.length > 0 && { images }), isError: result.isError === true };
}

/** The result's text; `notes` stand for the images that were checked (others get a size line). */
export function resultText(
  result: CallToolResult,
  notes: ReadonlyMap<ContentBlock, string> = new Map(),
): string {
  const parts = result.content.map((block) => notes.get(block) ?? describeBlock(block));
  const hasText = result.content.some(
    (block) => block.type === "text" || (block.type === "resource" && "text" in block.resource),
  );
  if (!hasText && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return parts.join("\n") || "(no output)";
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${count(base64Bytes(block.data))} bytes]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      const type = resource.mimeType ?? "binary";
      return `[resource ${resource.uri}: ${type}, ${count(base64Bytes(resource.blob))} bytes]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} at ${block.uri}]`;
  }
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, "base64");
}

/** The text cleaned of terminal escapes and, when longer than the bound, cut in the middle. */
export function bounded(text: string, bounds: ResultBounds): string {
  const clean = cleanTerminalText(text);
  // Characters and UTF-8 bytes both, as for bash: CJK text or emoji cost no more than ASCII.
  const maxBytes = bounds.maxChars;
  if (clean.length <= bounds.maxChars && Buffer.byteLength(clean) <= maxBytes) return clean;
  const half = Math.floor(bounds.maxChars / 2);
  const size = `${plural(clean.length, "character")}, ${plural(countLines(clean), "line")}`;
  const head = firstChars(clean, half, Math.floor(maxBytes / 2));
  const tail = lastChars(clean, half, Math.floor(maxBytes / 2));
  return showCut(head, tail, size, save(text, bounds));
}

function save(text: string, bounds: ResultBounds): Saved {
  const path = join(
    bounds.outputDirectory,
    `${bounds.toolName}-${randomBytes(4).toString("hex")}.txt`,
  );
  try {
    mkdirSync(bounds.outputDirectory, { recursive: true, mode: 0o700 });
    writeFileSync(path, text, { mode: 0o600 });
    return { path };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
