// How the fake servers check an image part, the way the real APIs do before a model sees it:
// a media type they take, base64 that decodes, bytes that are that type (read from the
// header, as the APIs do not trust the declared type), at most 5 MB of base64 and at most
// 8,000 px on a side (Anthropic's limits; its messages are quoted in docs/images.md).

const TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
export const MAX_BASE64 = 5 * 1024 * 1024;
const MAX_SIDE = 8_000;

export interface Dimensions {
  width: number;
  height: number;
}

/** The reason the API would reject this image, or null when it would take it. */
export function imageProblem(mediaType: unknown, data: unknown): string | null {
  if (typeof mediaType !== "string" || !TYPES.includes(mediaType)) {
    return `Input should be ${TYPES.map((type) => `'${type}'`).join(", ")}`;
  }
  if (typeof data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
    return "Invalid base64 data";
  }
  if (data.length > MAX_BASE64) {
    return `image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_BASE64} bytes`;
  }
  const bytes = Buffer.from(data, "base64");
  const actual = typeOf(bytes);
  if (actual === null) return "Could not process image";
  if (actual !== mediaType) {
    return `Image does not match the provided media type ${mediaType}`;
  }
  const size = dimensions(bytes, actual);
  if (size === null) return "Could not process image";
  if (size.width > MAX_SIDE || size.height > MAX_SIDE) {
    return `At least one of the image dimensions exceed max allowed size: ${MAX_SIDE} pixels`;
  }
  return null;
}

/** `data:image/png;base64,...` split into its type and data, or null when it is not one. */
export function splitDataUrl(url: unknown): { mediaType: string; data: string } | null {
  const found = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  return found ? { mediaType: found[1] as string, data: found[2] as string } : null;
}

function typeOf(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return "image/png";
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  const riff = bytes.subarray(0, 4).toString("latin1") === "RIFF";
  if (riff && bytes.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return null;
}

/** Width and height from the image's header. */
export function dimensions(bytes: Buffer, mediaType: string): Dimensions | null {
  if (mediaType === "image/png") {
    if (bytes.length < 24 || bytes.subarray(12, 16).toString("latin1") !== "IHDR") return null;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (mediaType === "image/gif") {
    if (bytes.length < 10) return null;
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (mediaType === "image/jpeg") return jpegDimensions(bytes);
  return webpDimensions(bytes);
}

function jpegDimensions(bytes: Buffer): Dimensions | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] as number;
    const length = bytes.readUInt16BE(at + 2);
    // Start-of-frame markers (not DHT 0xc4, JPG 0xc8, DAC 0xcc) hold the frame's size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

function webpDimensions(bytes: Buffer): Dimensions | null {
  const chunk = bytes.subarray(12, 16).toString("latin1");
  if (chunk === "VP8X" && bytes.length >= 30) {
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  }
  if (chunk === "VP8L" && bytes.length >= 25) {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 " && bytes.length >= 30) {
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  return null;
}
