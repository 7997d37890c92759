// Images in a session file are files beside it, so the transcript stays small: a message is
// written with each image's bytes replaced by the path of a file (relative to the sessions
// directory, under the session's own folder) and the SHA-256 of its bytes, and read back with
// the bytes loaded and checked against that hash. The same image is stored once.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImageBlock, ImageMediaType, Message, ToolResultPart } from "../core/messages.js";
import { extensionOf } from "./image-kind.js";

/** An image as the session file holds it. */
export interface StoredImage {
  type: "image";
  mediaType: ImageMediaType;
  /** Relative to the sessions directory: `<session id>/images/<sha256>.png`. */
  path: string;
  sha256: string;
}

type Part = ToolResultPart | StoredImage;

/** The message with its images written to files under `directory`/`sessionId`/images. */
export function storeImages(message: Message, directory: string, sessionId: string): Message {
  return mapParts(message, (part) => {
    if (part.type !== "image" || !("data" in part)) return part;
    const bytes = Buffer.from(part.data, "base64");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const path = join(sessionId, "images", `${sha256}.${extensionOf(part.mediaType)}`);
    mkdirSync(join(directory, sessionId, "images"), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(join(directory, path), bytes, { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stored: StoredImage = { type: "image", mediaType: part.mediaType, path, sha256 };
    return stored;
  });
}

/**
 * The message with its stored images read back from `directory`. An image whose file is gone
 * or changed becomes a line saying so: a resumed session never sends what was not recorded.
 */
export function loadImages(message: Message, directory: string): Message {
  return mapParts(message, (part) => {
    if (part.type !== "image" || !("path" in part)) return part;
    const loaded = readStored(part, directory);
    return (
      loaded ?? {
        type: "text",
        text: `[image ${part.path} is missing or changed since it was recorded]`,
      }
    );
  });
}

function readStored(stored: StoredImage, directory: string): ImageBlock | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(directory, stored.path));
  } catch {
    return null;
  }
  if (createHash("sha256").update(bytes).digest("hex") !== stored.sha256) return null;
  return { type: "image", mediaType: stored.mediaType, data: bytes.toString("base64") };
}

function mapParts(message: Message, change: (part: Part) => Part): Message {
  if (message.role !== "user" || typeof message.content === "string") return message;
  if (
    !message.content.some(
      (block) => block.type === "tool_result" && typeof block.content !== "string",
    )
  ) {
    return message;
  }
  const content = message.content.map((block) => {
    if (block.type !== "tool_result" || typeof block.content === "string") return block;
    return { ...block, content: (block.content as Part[]).map(change) as ToolResultPart[] };
  });
  return { role: "user", content };
}
