import { describe, expect, it } from "vitest";
import {
  cleanTerminalText,
  collapseCarriageReturns,
  looksBinary,
} from "../src/tools/terminal-text.js";

describe("cleanTerminalText", () => {
  it.each([
    ["colours", "\x1b[1;31mred\x1b[0m plain", "red plain"],
    ["cursor moves and line erases", "\x1b[2K\x1b[1Aup\x1b[?25l", "up"],
    ["a window title ended by BEL", "\x1b]0;title\x07text", "text"],
    ["a hyperlink ended by ESC \\", "\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["a charset switch", "\x1b(Btext", "text"],
    ["a sequence cut off at the end", "text\x1b[38;5", "text"],
    ["an escape string cut off at the end", "text\x1b]8;;https://exa", "text"],
    ["bells, backspaces and other controls", "a\x07b\x08c\x00d\x7fe\x9bf", "abcdef"],
  ])("removes %s", (_, input, expected) => {
    expect(cleanTerminalText(input)).toBe(expected);
  });

  it("keeps tabs, newlines and non-ASCII text", () => {
    expect(cleanTerminalText("a\tb\nçé 😀\n")).toBe("a\tb\nçé 😀\n");
  });

  it("turns CRLF line ends into plain newlines", () => {
    expect(cleanTerminalText("one\r\ntwo\r\n")).toBe("one\ntwo\n");
  });
});

describe("collapseCarriageReturns", () => {
  it("keeps what a progress line showed last", () => {
    expect(collapseCarriageReturns("10%\r50%\r100%\nnext")).toBe("100%\nnext");
  });

  it("drops the padding that erased a longer earlier state", () => {
    expect(collapseCarriageReturns("working...\rdone      \n")).toBe("done\n");
  });

  it("ignores a trailing carriage return", () => {
    expect(collapseCarriageReturns("done\r\nnext")).toBe("done\nnext");
  });
});

describe("looksBinary", () => {
  it("calls text with a NUL byte binary", () => {
    expect(looksBinary("ELF\0\0\x01")).toBe(true);
  });

  it("calls text that is mostly undecodable bytes binary", () => {
    expect(looksBinary("\uFFFD\uFFFDa\uFFFD\x01\x02")).toBe(true);
  });

  it("leaves text with a few bad bytes, colours and tabs alone", () => {
    expect(looksBinary("caf\uFFFD ok\n\x1b[31mred\x1b[0m\tx\r\n")).toBe(false);
    expect(looksBinary("")).toBe(false);
  });
});
