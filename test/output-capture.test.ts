import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type CapturedOutput, OutputCapture } from "../src/tools/output-capture.js";
import { cleanTerminalText } from "../src/tools/terminal-text.js";
import { isWellFormed } from "./support/unicode.js";

const dir = mkdtempSync(join(tmpdir(), "agentloop-capture-"));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(
  chunks: Uint8Array[],
  maxChars: number,
  maxBytes?: number,
): { output: CapturedOutput; path: string } {
  const path = join(dir, `output-${++files}.txt`);
  const capture = new OutputCapture({ maxChars, maxBytes, fullOutputPath: path });
  for (const chunk of chunks) capture.write(Buffer.from(chunk), "stdout");
  return { output: capture.finish(), path };
}

/** Splits `bytes` at the given points (taken modulo its length). */
function split(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const cuts = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...cuts].map((start, i) => bytes.subarray(start, cuts[i] ?? bytes.length));
}

// Mostly text in any script, with stray invalid bytes and escape sequences mixed in.
const outputBytes = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom("\n", "\r", "\x1b[31m", "\x1b]0;t\x07", "\t") },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3 }) },
    ),
    { maxLength: 30 },
  )
  .map((parts) =>
    Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))),
  );

describe("OutputCapture", () => {
  it("sends valid text within the limit, and keeps every byte whenever it cuts", () => {
    fc.assert(
      fc.property(
        outputBytes,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 4, max: 120 }),
        (bytes, points, maxChars) => {
          const { output, path } = capture(split(bytes, points), maxChars);
          switch (output.kind) {
            case "text": {
              const whole = cleanTerminalText(new TextDecoder().decode(bytes));
              expect(output.text).toBe(whole.replace(/^\n+/, "").trimEnd());
              expect(output.text.length).toBeLessThanOrEqual(maxChars);
              expect(isWellFormed(output.text)).toBe(true);
              break;
            }
            case "cut":
              expect(output.head.length + output.tail.length).toBeLessThanOrEqual(maxChars);
              expect(isWellFormed(output.head) && isWellFormed(output.tail)).toBe(true);
              expect(output.totalBytes).toBe(bytes.length);
              expect(readFileSync(path).equals(bytes)).toBe(true);
              break;
            case "binary":
              expect(readFileSync(path).equals(bytes)).toBe(true);
              break;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never sends more than maxBytes of UTF-8, and cuts between characters", () => {
    fc.assert(
      fc.property(
        outputBytes,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 4, max: 400 }),
        (bytes, points, maxBytes) => {
          const { output } = capture(split(bytes, points), 200, maxBytes);
          if (output.kind === "text") {
            expect(utf8(output.text)).toBeLessThanOrEqual(maxBytes);
          } else if (output.kind === "cut") {
            expect(utf8(output.head) + utf8(output.tail)).toBeLessThanOrEqual(maxBytes);
            expect(isWellFormed(output.head) && isWellFormed(output.tail)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    // 60,000 CJK characters: 60,000 UTF-16 units, 180,000 bytes.
    ["CJK", Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(0x4e00 + (i % 20_000)))],
    // 15,000 emoji: only 30,000 UTF-16 units, within maxChars, but 60,000 bytes.
    ["emoji", Array.from({ length: 15_000 }, (_, i) => String.fromCodePoint(0x1f300 + (i % 700)))],
  ])("bounds %s text by bytes, keeping whole characters at both ends", (_, characters) => {
    const text = characters.join("");
    const bytes = Buffer.from(text);
    // Odd-sized writes, so characters are split between them.
    const chunks = split(
      bytes,
      Array.from({ length: 40 }, (_, i) => i * 4099),
    );
    const { output, path } = capture(chunks, 50_000, 50_000);
    if (output.kind !== "cut") throw new Error(`expected a cut, got ${output.kind}`);
    expect(utf8(output.head) + utf8(output.tail)).toBeLessThanOrEqual(50_000);
    // Each half is filled to within one character of its 25,000 bytes.
    expect(utf8(output.head)).toBeGreaterThan(25_000 - 4);
    expect(utf8(output.tail)).toBeGreaterThan(25_000 - 4);
    expect(text.startsWith(output.head)).toBe(true);
    expect(text.endsWith(output.tail)).toBe(true);
    expect(`${output.head}${output.tail}`).not.toContain("\uFFFD");
    expect(isWellFormed(output.head) && isWellFormed(output.tail)).toBe(true);
    expect(output.totalBytes).toBe(bytes.length);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("shows text within both limits whole", () => {
    const text = "中文😀".repeat(1000);
    expect(capture([Buffer.from(text)], 50_000, 50_000).output).toEqual({ kind: "text", text });
  });

  it("gives the same result however the output was split into writes", () => {
    fc.assert(
      fc.property(outputBytes, fc.array(fc.nat(), { maxLength: 8 }), (bytes, points) => {
        const whole = capture([bytes], 60).output;
        const pieces = capture(split(bytes, points), 60).output;
        expect(withoutPath(pieces)).toEqual(withoutPath(whole));
      }),
      { numRuns: 200 },
    );
  });

  it("decodes each stream on its own, so a split character survives the other stream's write", () => {
    const capture = new OutputCapture({ maxChars: 100, fullOutputPath: join(dir, "mixed.txt") });
    capture.write(Buffer.from([0xe2, 0x82]), "stdout");
    capture.write(Buffer.from("(err)"), "stderr");
    capture.write(Buffer.from([0xac, 0x0a]), "stdout");
    expect(capture.finish()).toEqual({ kind: "text", text: "(err)€" });
  });

  it("keeps the order when a character pair does not fit at the end of the head", () => {
    const { output } = capture([Buffer.from("abc"), Buffer.from("😀"), Buffer.from("d")], 4);
    expect(output).toMatchObject({ kind: "cut", head: "ab", tail: "d" });
  });

  it("writes no file for output that is shown whole", () => {
    const { output, path } = capture([Buffer.from("small\n")], 100);
    expect(output).toEqual({ kind: "text", text: "small" });
    expect(existsSync(path)).toBe(false);
  });

  it("counts lines, including a last one without a newline", () => {
    const { output } = capture([Buffer.from("a\nb\nc\nd\ne\nf")], 4);
    expect(output).toMatchObject({ kind: "cut", lines: 6, totalBytes: 11 });
  });

  it("says why the full output could not be saved", () => {
    const capture = new OutputCapture({ maxChars: 4, fullOutputPath: "/no/such/dir/out.txt" });
    capture.write(Buffer.from("0123456789"), "stdout");
    expect(capture.finish()).toMatchObject({ kind: "cut", saved: { error: /ENOENT/ } });
  });
});

function utf8(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function withoutPath(output: CapturedOutput): unknown {
  return output.kind === "text" ? output : { ...output, saved: undefined };
}
