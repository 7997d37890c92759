// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, where ${...} is an expansion.
import { beforeAll, describe, expect, it } from "vitest";
import { initShellParser, parseShell } from "../src/shell/parse.js";
import type { ParsedScript } from "../src/shell/syntax.js";

function parsed(script: string) {
  const result: ParsedScript = parseShell(script);
  if (result.kind !== "parsed") throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}

/** Each simple command as its word values joined by spaces (`?` for a run-time value). */
function commandsOf(script: string): string[] {
  return parsed(script).commands.map((command) =>
    command.words.map((word) => word.value ?? "?").join(" "),
  );
}

describe("parseShell", () => {
  beforeAll(() => initShellParser());

  it("finds every simple command however the commands are joined", () => {
    const script = "a; b && c || d | e & f\ng";
    expect(commandsOf(script)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });

  it("finds commands inside subshells, groups, substitutions and process substitution", () => {
    const script = "(a) && { b; } && echo $(c) `d` <(e) >(f)";
    expect(commandsOf(script).sort()).toEqual(["a", "b", "c", "d", "e", "echo ? ? ? ?", "f"]);
  });

  it("finds commands in loops, conditions, case arms and function bodies", () => {
    const script = [
      "for x in 1 2; do a; done",
      "while b; do c; done",
      "if d; then e; elif f; then g; else h; fi",
      'case "$x" in y) i ;; *) j ;; esac',
      "k() { l; }",
    ].join("\n");
    expect(commandsOf(script)).toEqual("abcdefghijl".split(""));
  });

  it("finds the commands that follow a here-document marker on its line", () => {
    expect(commandsOf("cat <<EOF | sh && rm -rf build\nbody\nEOF").sort()).toEqual([
      "cat",
      "rm -rf build",
      "sh",
    ]);
  });

  it("runs nothing from comments, single quotes or a quoted here-document", () => {
    const script = "echo '$(a)' # $(b)\ncat <<'EOF'\n$(c)\nEOF";
    expect(commandsOf(script)).toEqual(["echo $(a)", "cat"]);
  });

  it("reads quoted and escaped words to their values, and leaves expansions unknown", () => {
    const script = `printf "a \\"b\\"" 'c d' e\\ f "$HOME" {x,y} -I{}`;
    expect(parsed(script).commands[0]?.words.map((word) => word.value)).toEqual([
      "printf",
      'a "b"',
      "c d",
      "e f",
      null,
      null,
      "-I{}",
    ]);
  });

  it("gives a pipeline's redirection to its last command and keeps bare ones", () => {
    const [first, last, bare] = parsed("a | b > out.txt 2>&1; > empty.txt").commands;
    expect(first?.redirects).toEqual([]);
    expect(last?.redirects.map((r) => [r.operator, r.target?.value])).toEqual([
      [">", "out.txt"],
      [">&", "1"],
    ]);
    expect(bare).toMatchObject({ words: [], redirects: [{ operator: ">", text: "> empty.txt" }] });
  });

  it("notes constructs that can run code hidden in data", () => {
    const script = "PATH=/x ls; echo $((n)) ${v@P} ${!ref}; [[ $a -eq 1 ]]; f() { :; }";
    expect(parsed(script).hazards.map((hazard) => hazard.text)).toEqual([
      "PATH=/x",
      "$((n))",
      "${v@P}",
      "${!ref}",
      "$a -eq 1",
      "f() { :; }",
    ]);
  });

  it("compares strings in [[ ]] without calling it arithmetic", () => {
    expect(parsed('[[ -f a && "$b" == c ]] && [ "$n" -eq 1 ]').hazards).toEqual([]);
  });

  it("says where a command stops making sense", () => {
    expect(parseShell('ls && echo "unterminated')).toEqual({
      kind: "unparsable",
      reason: expect.stringContaining("could not be parsed near"),
    });
  });

  it("refuses syntax it reads as ordinary words, which would hide commands", () => {
    expect(parseShell("coproc { rm -rf /; }")).toEqual({
      kind: "unparsable",
      reason: "it uses shell syntax agentloop cannot check (coproc)",
    });
  });
});
