import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bashTool, run } from "./support/bash-harness.js";
import { isWellFormed } from "./support/unicode.js";

/** The path the result names for the full output. */
function savedPath(content: string): string {
  const path = /saved in full to (\S+?)[ )]/.exec(content)?.[1];
  if (!path) throw new Error(`no saved output in: ${content.slice(0, 200)}`);
  return path;
}

describe("the bash tool sends bounded, readable output", () => {
  it("keeps the start and end of 50 MB and saves all of it to a file", async () => {
    const result = await run(bashTool(), "yes 'a line of text' | head -c 50000000", 30);
    expect(result.content.length).toBeLessThan(51_000);
    expect(result.content).toMatch(/^a line of text\na line of text\n/);
    expect(result.content).toMatch(/a line of text\na lin\n\[exit code 0\]$/);
    const lines = Math.ceil(50_000_000 / "a line of text\n".length).toLocaleString("en-US");
    expect(result.content).toContain(
      `[... output cut in the middle: 50,000,000 bytes, ${lines} lines in all; saved in full to `,
    );
    expect(statSync(savedPath(result.content)).size).toBe(50_000_000);
  });

  it("cuts a single 5 MB line into a readable start and end", async () => {
    const result = await run(
      bashTool(),
      "printf start; head -c 5000000 /dev/zero | tr '\\0' x; echo end",
    );
    expect(result.content.length).toBeLessThan(51_000);
    expect(result.content).toMatch(/^startxxx/);
    expect(result.content).toMatch(/xxxend\n\[exit code 0\]$/);
    expect(result.content).toContain("5,000,009 bytes, 1 line in all");
  });

  it("cuts where the caller asks, at most maxOutputChars characters of output", async () => {
    const result = await run(bashTool({ maxOutputChars: 200 }), "seq 1 1000");
    const [head = "", tail = ""] = result.content.split(/\n\[\.\.\. output cut .*\]\n/);
    expect(head).toMatch(/^1\n2\n3\n/);
    expect(tail).toMatch(/\n999\n1000\n\[exit code 0\]$/);
    expect(head.length + tail.replace(/\n\[exit code 0\]$/, "").length).toBeLessThanOrEqual(200);
  });

  it("collapses \\r progress updates to what each line showed last", async () => {
    const result = await run(
      bashTool(),
      "for p in 10 50 90; do printf '\\rdownloading %d%%' $p; done; printf '\\rdownloaded    \\n'; echo next",
    );
    expect(result.content).toBe("downloaded\nnext\n[exit code 0]");
  });

  it("strips colours, cursor moves and terminal hyperlinks", async () => {
    const result = await run(
      bashTool(),
      "printf '\\033[1;31mred\\033[0m \\033[2K\\033]8;;https://example.com\\033\\\\link\\033]8;;\\007 \\033]0;title\\007done\\n'",
    );
    expect(result.content).toBe("red link done\n[exit code 0]");
  });

  it("summarises binary output and saves the exact bytes", async () => {
    const result = await run(bashTool(), "printf 'head\\000\\001\\002\\377tail'");
    expect(result.content).toMatch(
      /^\(binary output, 12 bytes, saved in full to \S+\)\n\[exit code 0\]$/,
    );
    const saved = readFileSync(savedPath(result.content));
    expect([...saved]).toEqual([...Buffer.from("head\x00\x01\x02\xfftail", "latin1")]);
  });

  it("turns invalid UTF-8 into U+FFFD and keeps the rest", async () => {
    const result = await run(bashTool(), "printf 'caf\\351 ok\\n'");
    expect(result.content).toBe("caf\uFFFD ok\n[exit code 0]");
  });

  it("decodes a character whose bytes arrive in separate writes", async () => {
    const result = await run(
      bashTool(),
      "printf '\\342\\202'; sleep 0.2; printf '\\254 and \\360\\237'; sleep 0.2; printf '\\230\\200\\n'",
    );
    expect(result.content).toBe("€ and 😀\n[exit code 0]");
  });

  it("never cuts through a character", async () => {
    const result = await run(
      bashTool({ maxOutputChars: 1001 }),
      "python3 -c \"print('a€😀' * 20000)\"",
    );
    expect(result.content).toContain("[... output cut in the middle");
    expect(isWellFormed(result.content)).toBe(true);
    expect(result.content).not.toContain("\uFFFD");
  });

  it.each([
    ["60,000 CJK characters", "\\u4e2d\\u6587", 30_000, 3],
    ["emoji", "\\U0001F600\\U0001F680", 10_000, 4],
  ])("keeps %s to about 50 KB, cut between characters", async (_, pair, repeats, size) => {
    const result = await run(bashTool(), `python3 -c "print('${pair}' * ${repeats})"`);
    const [head = "", note = "", tail = ""] = result.content.split(
      /\n(\[\.\.\. output cut .*\])\n/,
    );
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(
      50_000 + "\n[exit code 0]".length,
    );
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(50_000 + 300);
    expect(head.length).toBeGreaterThan(1000);
    expect(tail).toMatch(/\n\[exit code 0\]$/);
    expect(tail.length).toBeGreaterThan(1000);
    expect(isWellFormed(result.content)).toBe(true);
    expect(result.content).not.toContain("\uFFFD");
    const total = 2 * repeats * size + 1;
    expect(note).toContain(`${total.toLocaleString("en-US")} bytes, 1 line in all`);
    expect(statSync(savedPath(result.content)).size).toBe(total);
  });

  it("interleaves stdout and stderr in the order they were written", async () => {
    const result = await run(bashTool(), "echo out1; echo err1 >&2; echo out2; echo err2 >&2");
    expect(result.content).toBe("out1\nerr1\nout2\nerr2\n[exit code 0]");
  });

  it("says (no output) when there is none", async () => {
    expect((await run(bashTool(), "true")).content).toBe("(no output)\n[exit code 0]");
  });
});

describe("the bash tool redacts what the model reads", () => {
  it("applies the redaction to the whole result", async () => {
    const tool = bashTool({ redact: (text) => text.replaceAll("hunter2", "[redacted]") });
    expect((await run(tool, "echo password=hunter2")).content).toBe(
      "password=[redacted]\n[exit code 0]",
    );
  });
});
