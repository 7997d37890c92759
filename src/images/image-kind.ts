// Which image a file holds, from its first bytes (never from its name): the four formats every
// provider agentloop speaks accepts: JPEG, PNG, GIF and WebP for Anthropic
// (platform.claude.com/docs/en/build-with-claude/vision) and the same four for OpenAI's
// Chat Completions and Responses APIs (docs/images.md says where that is written).

import type { ImageMediaType } from "../core/messages.js";

export interface ImageKind {
  /** The name a person reads: PNG, JPEG, GIF, WebP. */
  format: string;
  mediaType: ImageMediaType;
}

const ascii = (text: string) => Buffer.from(text, "latin1");

const SIGNATURES: { kind: ImageKind; offset: number; bytes: Buffer }[] = [
  {
    kind: { format: "PNG", mediaType: "image/png" },
    offset: 0,
    bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  {
    kind: { format: "JPEG", mediaType: "image/jpeg" },
    offset: 0,
    bytes: Buffer.from([0xff, 0xd8, 0xff]),
  },
  { kind: { format: "GIF", mediaType: "image/gif" }, offset: 0, bytes: ascii("GIF8") },
  // RIFF....WEBP: the four bytes between are the file's length.
  { kind: { format: "WebP", mediaType: "image/webp" }, offset: 8, bytes: ascii("WEBP") },
];

/** The image format the bytes start with, or null when they start like none of the four. */
export function imageKind(head: Buffer): ImageKind | null {
  for (const { kind, offset, bytes } of SIGNATURES) {
    const at = head.subarray(offset, offset + bytes.length);
    if (!at.equals(bytes)) continue;
    if (kind.mediaType === "image/webp" && !head.subarray(0, 4).equals(ascii("RIFF"))) continue;
    return kind;
  }
  return null;
}

export function formatOf(mediaType: ImageMediaType): string {
  return SIGNATURES.find(({ kind }) => kind.mediaType === mediaType)?.kind.format ?? mediaType;
}

/** The file name extension for an image of this type. */
export function extensionOf(mediaType: ImageMediaType): string {
  return mediaType.replace("image/", "").replace("jpeg", "jpg");
}
