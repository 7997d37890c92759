// String.prototype.isWellFormed is newer than our TypeScript lib setting; this is the same test.

/** True when `text` has no lone surrogate, so it survives UTF-8 (and JSON) unchanged. */
export function isWellFormed(text: string): boolean {
  return Buffer.from(text, "utf8").toString("utf8") === text;
}
