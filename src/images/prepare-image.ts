// Makes an image sendable: checks that the bytes are a whole image of a format the APIs take,
// and, when it is larger than their limits (image-limits.ts), scales it down and re-encodes it
// until it fits. sharp (libvips, prebuilt for each platform as @img/* packages on npm) does the
// decoding and encoding; it is loaded on the first image, so a run without images never pays
// its start-up.

import type { ImageBlock, ImageMediaType } from "../core/messages.js";
import { count } from "../core/wording.js";
import { imageKind } from "./image-kind.js";
import { MAX_IMAGE_BYTES, MAX_IMAGE_SIDE } from "./image-limits.js";

export interface PreparedImage {
  image: ImageBlock;
  /** The format and size of the image as it was given. */
  original: { format: string; width: number; height: number; bytes: number };
  /** The format and size sent, when the image had to be scaled down or re-encoded. */
  resized: { format: string; width: number; height: number; bytes: number } | null;
}

export type ImageCheck = { ok: true; prepared: PreparedImage } | { ok: false; reason: string };

type Sharp = typeof import("sharp").default;
let loaded: Promise<Sharp> | undefined;
const sharpLibrary = () => {
  loaded ??= import("sharp").then((module) => module.default);
  return loaded;
};

/** One way to encode a scaled image; tried in order until one fits MAX_IMAGE_BYTES. */
interface Encoding {
  side: number;
  as: "png" | "jpeg";
  quality?: number;
}

const LOSSLESS_FIRST: Encoding[] = [
  { side: MAX_IMAGE_SIDE, as: "png" },
  { side: MAX_IMAGE_SIDE, as: "jpeg", quality: 85 },
  { side: MAX_IMAGE_SIDE, as: "jpeg", quality: 60 },
  { side: 1_000, as: "jpeg", quality: 60 },
];
// A photograph stays a JPEG: as PNG it would only grow.
const PHOTO = LOSSLESS_FIRST.slice(1);

export async function prepareImage(bytes: Buffer): Promise<ImageCheck> {
  const kind = imageKind(bytes);
  if (kind === null) return { ok: false, reason: "it is not a PNG, JPEG, GIF or WebP image" };
  const sharp = await sharpLibrary();
  const unreadable = (error: unknown): ImageCheck => ({
    ok: false,
    reason: `it starts like a ${kind.format} image but cannot be decoded (${messageOf(error)})`,
  });
  let original: PreparedImage["original"];
  try {
    const { width, height } = await sharp(bytes).metadata();
    original = { format: kind.format, width, height, bytes: bytes.length };
  } catch (error) {
    return unreadable(error);
  }
  try {
    if (
      Math.max(original.width, original.height) <= MAX_IMAGE_SIDE &&
      bytes.length <= MAX_IMAGE_BYTES
    ) {
      // The header can be whole and the pixels cut off or garbled: decode them all once (at
      // most 2,000 x 2,000 pixels here; a larger image is decoded by the scaling below).
      await sharp(bytes, { failOn: "error" }).raw().toBuffer();
      // @step images: A whole image within the limits goes into the tool's result as it is.
      return {
        ok: true,
        prepared: { image: block(kind.mediaType, bytes), original, resized: null },
      };
    }
    for (const encoding of kind.mediaType === "image/jpeg" ? PHOTO : LOSSLESS_FIRST) {
      const scaled = await encode(sharp, bytes, encoding);
      if (scaled.data.length > MAX_IMAGE_BYTES) continue;
      const { info } = scaled;
      const format = encoding.as === "png" ? "PNG" : "JPEG";
      const resized = { format, width: info.width, height: info.height, bytes: scaled.data.length };
      const mediaType = encoding.as === "png" ? "image/png" : "image/jpeg";
      return { ok: true, prepared: { image: block(mediaType, scaled.data), original, resized } };
    }
  } catch (error) {
    return unreadable(error);
  }
  return {
    ok: false,
    reason: `even scaled to 1,000 px it is over ${count(MAX_IMAGE_BYTES)} bytes`,
  };
}

async function encode(sharp: Sharp, bytes: Buffer, encoding: Encoding) {
  const scaled = sharp(bytes, { failOn: "error" }).autoOrient().resize({
    width: encoding.side,
    height: encoding.side,
    fit: "inside",
    withoutEnlargement: true,
  });
  const encoded =
    encoding.as === "png"
      ? scaled.png({ compressionLevel: 9 })
      : scaled.flatten({ background: "#ffffff" }).jpeg({ quality: encoding.quality });
  return encoded.toBuffer({ resolveWithObject: true });
}

/** The one line the model reads beside the image: `shot.png: PNG, 1280x720`, and any resizing. */
export function describePrepared(name: string, prepared: PreparedImage): string {
  const { original, resized } = prepared;
  const line = `${name}: ${original.format}, ${original.width}x${original.height}`;
  if (!resized) return line;
  return `${line} (${count(original.bytes)} bytes); sent resized to fit the API limits as ${resized.format}, ${resized.width}x${resized.height} (${count(resized.bytes)} bytes)`;
}

function block(mediaType: ImageMediaType, data: Buffer): ImageBlock {
  return { type: "image", mediaType, data: data.toString("base64") };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
