// The model's Markdown rendered for a terminal as it streams: each block printed once, as soon
// as it is complete, styled with escape sequences, the same however the text was cut up.

import { stripVTControlCharacters } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyUsage } from "../src/core/messages.js";
import { createMarkdownStream } from "../src/terminal/markdown.js";
import { createRenderer, loadMarkdownRenderer } from "../src/terminal/render.js";

const ANSWER = [
  "# Release notes",
  "",
  "This release adds **rendered answers** and *streaming* output; run `npm ci` first.",
  "See [the guide](https://example.com/guide) or <https://example.com>.",
  "",
  "## Steps",
  "",
  "1. Install the tools:",
  "   ```sh",
  "   npm ci",
  "   ```",
  "2. Run the checks",
  "   - type check",
  "     - lint",
  "   - [x] tests",
  "",
  "> Quoted with `code`",
  "> and more.",
  "",
  "| tool | size |",
  "|:-----|-----:|",
  "| marked | 616K |",
  "| lowlight | 108K |",
  "",
  "---",
  "",
  "```ts",
  "const answer: number = 42;",
  "",
  "function greet(name: string) {",
  "  return 'hello ' + name;",
  "}",
  "```",
  "",
  "Setext heading",
  "==============",
  "Last paragraph with ~~old~~ text.",
].join("\n");

const ESC = "\x1b[";
const BOLD = `${ESC}1m`;

function renderWhole(markdown: string, options = { width: 80, color: true }): string {
  let out = "";
  const stream = createMarkdownStream((text) => (out += text), options);
  stream.push(markdown);
  stream.end();
  return out;
}

/** Renders `markdown` pushed in the given pieces, recording every write. */
function renderPieces(pieces: string[], options = { width: 80, color: true }) {
  const writes: string[] = [];
  const stream = createMarkdownStream((text) => writes.push(text), options);
  for (const piece of pieces) stream.push(piece);
  stream.end();
  return { writes, out: writes.join("") };
}

function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((start, i) => text.slice(start, points[i] ?? text.length));
}

const strip = stripVTControlCharacters;

describe("streaming Markdown to a terminal", () => {
  it("prints the same whatever small pieces the answer arrives in", () => {
    const whole = renderWhole(ANSWER);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 200 }), (at) => {
        expect(renderPieces(cut(ANSWER, at)).out).toBe(whole);
      }),
      { numRuns: 300 },
    );
    const oneCharacterAtATime = renderPieces([...ANSWER]);
    expect(oneCharacterAtATime.out).toBe(whole);
  });

  it("prints every piece of the answer exactly once", () => {
    const { out } = renderPieces([...ANSWER]);
    const shown = strip(out);
    for (const word of ["Release notes", "rendered answers", "Install the tools", "type check"])
      expect(shown.split(word)).toHaveLength(2);
    for (const word of ["const", "marked", "Quoted", "Setext heading", "Last paragraph"])
      expect(shown.split(word)).toHaveLength(2);
  });

  it("prints a block as soon as it is complete and holds back the unfinished tail", () => {
    let out = "";
    const stream = createMarkdownStream((text) => (out += text), { width: 80, color: true });
    stream.push("# Title\nA paragraph that is still");
    expect(strip(out)).toBe("Title\n");
    stream.push(" going\n");
    expect(strip(out)).toBe("Title\n");
    stream.push("\n- first item\n- sec");
    expect(strip(out)).toBe("Title\nA paragraph that is still going\n\n• first item\n");
    stream.push("ond item\n```js\nlet a = 1;\n");
    expect(strip(out)).toContain("• second item\n");
    expect(strip(out)).not.toContain("let a");
    stream.push("```\n");
    expect(strip(out)).toMatch(/let a = 1;\n$/);
  });

  it("styles headings, emphasis, inline code, lists, quotes, tables and links", () => {
    const out = renderWhole(ANSWER);
    expect(out).toContain(`${ESC}1;4mRelease notes`);
    expect(out).toContain(`${ESC}1mSteps`);
    expect(out).toContain(`${BOLD}rendered answers${ESC}0m`);
    expect(out).toContain(`${ESC}3mstreaming${ESC}0m`);
    expect(out).toContain(`${ESC}36mnpm ci${ESC}0m`);
    expect(out).toContain(`${ESC}9mold${ESC}0m`);
    expect(out).toContain(`${ESC}2m1.${ESC}0m Install the tools:`);
    expect(out).toContain(`${ESC}2m◦${ESC}0m type check`);
    expect(out).toContain(`${ESC}4;34mthe guide${ESC}0m ${ESC}2m(https://example.com/guide)`);
    expect(out).toContain(`${ESC}2m│${ESC}0m Quoted with`);
    expect(out).toContain(`${BOLD}tool${ESC}0m`);
    expect(strip(out)).toContain("marked   │ 616K");
    expect(strip(out)).toContain("lowlight │ 108K");
    expect(out).not.toMatch(/\*\*|```|^#/m);
  });

  it("lays nested lists and code inside a list item out under their item", () => {
    const shown = strip(renderWhole(ANSWER)).split("\n");
    expect(shown).toContain("1. Install the tools:");
    expect(shown).toContain("   npm ci");
    expect(shown).toContain("2. Run the checks");
    expect(shown).toContain("   ◦ type check");
    expect(shown).toContain("     ▪ lint");
    expect(shown).toContain("   ☑ tests");
  });

  it("highlights a ```ts code block by its language", () => {
    const out = renderWhole("```ts\nconst answer: number = 42; // why\n```\n");
    expect(out).toContain(`${ESC}35mconst${ESC}39m`);
    expect(out).toContain(`${ESC}33m42${ESC}39m`);
    expect(out).toContain(`${ESC}90m// why${ESC}39m`);
    expect(strip(out)).toBe("const answer: number = 42; // why\n");
  });

  it("leaves code in an unknown language uncoloured", () => {
    expect(renderWhole("```nosuchlanguage\nx = 1\n```")).toBe("x = 1\n");
  });

  it("prints an unclosed code block and an unfinished line at the end", () => {
    const { writes, out } = renderPieces(["Intro\n\n```py\nprint('hi')\nprint('un", "finished')"]);
    expect(writes).toHaveLength(2);
    expect(strip(out)).toBe("Intro\n\nprint('hi')\nprint('unfinished')\n");
    expect(out).toContain(`${ESC}36mprint${ESC}39m`);
  });

  it("wraps prose to the width but never code or tables", () => {
    const long = "word ".repeat(30).trim();
    const code = `let x = "${"y".repeat(60)}";`;
    const table = `| a | b |\n|---|---|\n| ${"c".repeat(40)} | ${"d".repeat(30)} |`;
    const lines = renderWhole(`${long}\n\n\`\`\`js\n${code}\n\`\`\`\n\n${table}`, {
      width: 40,
      color: false,
    }).split("\n");
    expect(lines.slice(0, 4).every((line) => line.length <= 40)).toBe(true);
    expect(lines).toContain(code);
    expect(lines.some((line) => line.length > 70 && line.includes("│"))).toBe(true);
  });

  it("uses no escape sequences without colour", () => {
    const out = renderWhole(ANSWER, { width: 80, color: false });
    expect(out).not.toContain("\x1b");
    expect(out).toContain("1. Install the tools:");
  });
});

describe("the renderer on a terminal", () => {
  function show(color: boolean, pieces: string[]) {
    let out = "";
    const output = { write: (text: string) => (out += text) };
    const render = createRenderer({ answer: output, progress: output, color, streamText: true });
    for (const text of pieces) render({ type: "text_delta", text });
    render({
      type: "assistant_message",
      turn: 1,
      message: { role: "assistant", content: [{ type: "text", text: pieces.join("") }] },
      stopReason: "tool_use",
      usage: emptyUsage(),
      durationMs: 1,
    });
    render({ type: "tool_start", call: { type: "tool_use", id: "t1", name: "bash", input: {} } });
    return out;
  }

  it("renders the answer's Markdown when colour is on, finishing it before the next tool", async () => {
    await loadMarkdownRenderer();
    const out = show(true, ["# Hi\n\nSome **bo", "ld** text"]);
    expect(out).toBe(
      `${ESC}1;4mHi${ESC}0m\n\nSome ${BOLD}bold${ESC}0m text\n${ESC}36m⏺${ESC}0m bash {}\n`,
    );
  });

  it("shows exactly the model's text without colour", async () => {
    await loadMarkdownRenderer();
    expect(show(false, ["# Hi\n\nSome **bo", "ld** text"])).toBe(
      "# Hi\n\nSome **bold** text\n⏺ bash {}\n",
    );
  });
});
