// An editor's prompt (text, links to files, embedded files, images) as the one text a session
// takes. A link names its file for the model to read; an embedded file comes whole, as the
// editor has it (unsaved changes included); an image is saved beside the session, in a file
// the read tool opens (and shows the model as an image).
// Content blocks: https://agentclientprotocol.com/protocol/v1/content

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

const IMAGE_EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** `images`: the folder a prompt's images are saved in, the session's own. */
export function promptText(blocks: readonly ContentBlock[], images: string): string {
  return blocks
    .map((block) => blockText(block, images))
    .filter(Boolean)
    .join("\n\n");
}

function blockText(block: ContentBlock, images: string): string {
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
        ? imageText(resource.blob, extension, images)
        : `The user attached ${where} (${resource.mimeType ?? "binary"}), which is not text.`;
    }
    case "image": {
      const extension = IMAGE_EXTENSIONS[block.mimeType];
      if (!extension)
        return `The user attached an image of type ${block.mimeType}, which cannot be read.`;
      return imageText(block.data, extension, images);
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

/** The image in a file named by its hash, named in the prompt so the model reads it with `read`. */
function imageText(base64: string, extension: string, images: string): string {
  const bytes = Buffer.from(base64, "base64");
  const file = join(images, `${createHash("sha256").update(bytes).digest("hex")}.${extension}`);
  mkdirSync(images, { recursive: true, mode: 0o700 });
  writeFileSync(file, bytes, { mode: 0o600 });
  return `The user attached an image, saved as ${file}: read it with the read tool to see it.`;
}
