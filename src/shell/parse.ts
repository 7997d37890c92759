// Reads a bash command line with tree-sitter-bash (the grammar editors use, compiled to wasm)
// and lists the simple commands it runs, however they are joined or nested: `;`, `&&`, `||`,
// pipes, `&`, subshells, `{}` groups, `$(...)`, backticks, process substitution, here-docs,
// loops, functions. Anything it cannot read with certainty makes the script "unparsable",
// which the permission rules treat as "not proven safe", never as safe.

import { createRequire } from "node:module";
import type { Node, Parser } from "web-tree-sitter";
import type { Hazard, ParsedScript, Redirect, SimpleCommand, Word } from "./syntax.js";

let loading: Promise<Parser> | null = null;
let parser: Parser | null = null;

/** Loads the wasm parser once (about 50 ms); later calls return the same promise. */
export async function initShellParser(): Promise<void> {
  loading ??= loadParser();
  parser = await loading;
}

export function isShellParserReady(): boolean {
  return parser !== null;
}

async function loadParser(): Promise<Parser> {
  // Imported here, on the first tool call, so start-up does not compile its 100 KB of script.
  const { Language, Parser } = await import("web-tree-sitter");
  // Resolved from this module so the files are found from the sources and from the bundle.
  const require = createRequire(import.meta.url);
  const runtime = require.resolve("web-tree-sitter/web-tree-sitter.wasm");
  await Parser.init({ locateFile: () => runtime });
  const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  return new Parser().setLanguage(bash);
}

/** Parses a script. Call `initShellParser()` first; calling this before is a bug. */
export function parseShell(script: string): ParsedScript {
  if (!parser) throw new Error("parseShell() was called before initShellParser() finished.");
  const tree = parser.parse(script);
  if (!tree) return { kind: "unparsable", reason: "the shell parser gave up on it" };
  try {
    const broken = firstError(tree.rootNode);
    if (broken) {
      return { kind: "unparsable", reason: `it could not be parsed near ${quote(broken.text)}` };
    }
    const reader = new ScriptReader();
    reader.visit(tree.rootNode);
    return { kind: "parsed", commands: reader.commands, hazards: reader.hazards };
  } catch (error) {
    if (error instanceof Unsupported) return { kind: "unparsable", reason: error.message };
    throw error;
  } finally {
    tree.delete();
  }
}

/** Variables that change which program a command name runs or what a shell runs on its own. */
export function changesHowCommandsRun(name: string): boolean {
  return /^(PATH|HOME|CDPATH|ENV|IFS|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS[0-4]|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|(BASH|LD|DYLD|GIT)_\w+)$/.test(
    name,
  );
}

class Unsupported extends Error {}

const ARITHMETIC_NODES = new Set([
  "arithmetic_expansion",
  "c_style_for_statement",
  "binary_expression",
  "unary_expression",
  "postfix_expression",
  "ternary_expression",
  "parenthesized_expression",
]);

/** Nodes whose meaning is entirely in their children. */
const CONTAINERS = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "negated_command",
  "do_group",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "case_statement",
  "case_item",
  "command_substitution",
  "process_substitution",
  "string",
  "concatenation",
  "array",
  "heredoc_body",
  "command_name",
  "unset_command",
  "variable_assignments",
  "simple_expansion",
  "brace_expression",
  "translated_string",
]);

/** Leaves: they run nothing. */
const LEAVES = new Set([
  "word",
  "number",
  "raw_string",
  "ansi_c_string",
  "string_content",
  "variable_name",
  "special_variable_name",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "file_descriptor",
  "regex",
  "extglob_pattern",
  "comment",
]);

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);

/** Every node type that is walked into; anything else is syntax this reader does not know. */
const STRUCTURE = new Set([
  ...CONTAINERS,
  ...LEAVES,
  ...ARITHMETIC_NODES,
  "variable_assignment",
  "declaration_command",
  "for_statement",
  "compound_statement",
  "function_definition",
  "test_operator",
  "expansion",
  "subscript",
]);

const ARITHMETIC = "evaluates arithmetic, which can run commands hidden in variables";

class ScriptReader {
  commands: SimpleCommand[] = [];
  hazards: Hazard[] = [];
  /** `[[ ]]` compares numbers arithmetically; `[ ]` and `test` do not. */
  private inDoubleBracketTest = false;
  private inSingleBracketTest = false;

  visit(node: Node): void {
    if (!node.isNamed) return;
    const hazard = this.hazardOf(node);
    // An operator alone (`-gt`) says little; its comparison (`$x -gt 1`) says what is meant.
    const shown = node.type === "test_operator" ? (node.parent ?? node) : node;
    if (hazard) this.hazards.push({ text: shown.text, why: hazard });
    switch (node.type) {
      case "command":
        this.command(node, []);
        break;
      case "redirected_statement":
        this.redirectedStatement(node);
        break;
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        this.commands.push({ words: [], redirects: [this.redirect(node)], assignments: [] });
        break;
      case "test_command":
        this.testCommand(node);
        break;
      default:
        if (!STRUCTURE.has(node.type)) {
          throw new Unsupported(`it uses shell syntax agentloop cannot check (${node.type})`);
        }
        this.visitChildren(node);
    }
  }

  /** Why this node may run code the rules cannot see, or null. */
  private hazardOf(node: Node): string | null {
    const { type, text } = node;
    if (ARITHMETIC_NODES.has(type)) {
      const inTest = this.inDoubleBracketTest || this.inSingleBracketTest;
      return inTest && type !== "arithmetic_expansion" ? null : ARITHMETIC;
    }
    switch (type) {
      case "variable_assignment":
      case "for_statement": {
        const name = node.childForFieldName(type === "for_statement" ? "variable" : "name");
        const changes = name?.type === "variable_name" && changesHowCommandsRun(name.text);
        return changes ? `sets ${name.text}, which changes how commands run` : null;
      }
      case "declaration_command":
        return node.namedChildren.some(
          (child) => child?.type === "word" && /^-\w*[in]/.test(child.text),
        )
          ? "declares an integer or reference variable, which evaluates its value"
          : null;
      case "compound_statement":
        return node.firstChild?.type === "((" ? ARITHMETIC : null;
      case "function_definition":
        return "defines a shell function, which can stand in for any command";
      case "test_operator":
        return this.inDoubleBracketTest && /^-(eq|ne|lt|le|gt|ge)$/.test(text) ? ARITHMETIC : null;
      case "expansion":
        if (/@P\}$/.test(text)) return "expands text as a prompt, which runs commands inside it";
        return text.startsWith("${!") && !/[*@]\}$/.test(text)
          ? "expands a variable named by another, which can evaluate arithmetic"
          : null;
      case "subscript": {
        const index = node.childForFieldName("index");
        const plain = !index || index.type === "number" || index.text === "@" || index.text === "*";
        return plain ? null : "indexes an array by an expression, which is evaluated as arithmetic";
      }
      default:
        return null;
    }
  }

  private visitChildren(node: Node): void {
    for (const child of node.namedChildren) if (child) this.visit(child);
  }

  private command(node: Node, trailingRedirects: Redirect[]): void {
    const command: SimpleCommand = { words: [], redirects: [], assignments: [] };
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        command.assignments.push(child.childForFieldName("name")?.text ?? child.text);
        this.visit(child);
      } else if (REDIRECTS.has(child.type)) {
        command.redirects.push(this.redirect(child));
      } else {
        const wordNode = child.type === "command_name" ? child.firstNamedChild : child;
        if (wordNode) command.words.push(readWord(wordNode));
        this.visit(child);
      }
    }
    command.redirects.push(...trailingRedirects);
    const name = command.words[0]?.value;
    // tree-sitter-bash reads these as ordinary words, which would hide the commands inside.
    if (name === "coproc" || name === "{" || name === "}") {
      throw new Unsupported(`it uses shell syntax agentloop cannot check (${name})`);
    }
    this.commands.push(command);
  }

  private redirectedStatement(node: Node): void {
    const redirects: Redirect[] = [];
    let body: Node | null = null;
    for (const child of node.namedChildren) {
      if (child && REDIRECTS.has(child.type)) redirects.push(this.redirect(child));
      else body = child;
    }
    // `a | b > out`: the redirection belongs to the last command of the pipeline.
    const last = body?.type === "pipeline" ? body.lastNamedChild : body;
    if (body && last?.type === "command") {
      for (const child of body.namedChildren) if (child && child.id !== last.id) this.visit(child);
      this.command(last, redirects);
      return;
    }
    if (body) this.visit(body);
    this.commands.push({ words: [], redirects, assignments: [] });
  }

  private redirect(node: Node): Redirect {
    const operator = node.children.find((child) => child && !child.isNamed)?.type ?? "";
    const destination =
      node.type === "file_redirect" ? node.childForFieldName("destination") : null;
    // Here-docs carry their body and any commands that follow `<<EOF` on the same line.
    for (const child of node.namedChildren) if (child) this.visit(child);
    return { operator, target: destination ? readWord(destination) : null, text: node.text };
  }

  private testCommand(node: Node): void {
    const double = node.firstChild?.type === "[[";
    const saved = [this.inDoubleBracketTest, this.inSingleBracketTest] as const;
    this.inDoubleBracketTest = double;
    this.inSingleBracketTest = !double;
    this.visitChildren(node);
    [this.inDoubleBracketTest, this.inSingleBracketTest] = saved;
  }
}

/** `{a,b}` and `{1..3}` expand to several words. */
const BRACE_EXPANSION = /\{[^}]*(,|\.\.)[^}]*\}/;

/** The value of a word after quote removal, or null if it is only known at run time. */
function readWord(node: Node): Word {
  return { text: node.text, value: wordValue(node) };
}

function wordValue(node: Node): string | null {
  switch (node.type) {
    case "word":
      if (BRACE_EXPANSION.test(node.text)) return null;
      return node.text.replace(/\\\n/g, "").replace(/\\(.)/g, "$1");
    case "number":
      return node.text;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      const parts = node.namedChildren;
      if (parts.some((part) => part?.type !== "string_content")) return null;
      return parts
        .map((part) => (part?.text ?? "").replace(/\\\n/g, "").replace(/\\([\\"$`])/g, "$1"))
        .join("");
    }
    case "concatenation": {
      if (BRACE_EXPANSION.test(node.text)) return null;
      const values = node.namedChildren.map((part) => (part ? wordValue(part) : null));
      return values.includes(null) ? null : values.join("");
    }
    default:
      return null;
  }
}

function firstError(node: Node): Node | null {
  if (node.isError || node.isMissing) return node;
  if (!node.hasError) return null;
  for (const child of node.children) {
    const found = child ? firstError(child) : null;
    if (found) return found;
  }
  return node;
}

function quote(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}...` : line);
}
