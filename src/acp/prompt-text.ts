// An editor's prompt (text, links to files, embedded files, images) as the one text a session
// takes. A link names its file for the model to read; an embedded file comes whole, as the
// editor has it (unsaved changes included); an image is saved to a file the read tool opens.
// Content blocks: https://agentclientprotocol.com/protocol/v1/content

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

const IMAGE_EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks.map(blockText).filter(Boolean).join("\n\n");
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `The user points to ${pathOf(block.uri)}${block.title ? ` (${block.title})` : ""}.`;
    case "resource": {
      const { resource } = block;
      const where = pathOf(resource.uri);
      if ("text" in resource) return `<file path="${where}">\n${resource.text}\n</file>`;
      const extension = IMAGE_EXTENSIONS[resource.mimeType ?? ""];
      return extension
        ? imageText(resource.blob, extension)
        : `The user attached ${where} (${resource.mimeType ?? "binary"}), which is not text.`;
    }
    case "image": {
      const extension = IMAGE_EXTENSIONS[block.mimeType];
      if (!extension)
        return `The user attached an image of type ${block.mimeType}, which cannot be read.`;
      return imageText(block.data, extension);
    }
    case "audio":
      return "The user attached a sound, which agentloop cannot hear.";
  }
}

/** A file:// URI as its path; any other URI as it is. */
function pathOf(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** The image in a file of its own, named in the prompt so the model reads it with `read`. */
function imageText(base64: string, extension: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "agentloop-acp-image-")), `image.${extension}`);
  writeFileSync(file, Buffer.from(base64, "base64"));
  return `The user attached an image, saved as ${file}: read it with the read tool to see it.`;
}
