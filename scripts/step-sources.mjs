// Collects the step anchors of src/: each `// @step KEY: sentence` comment names the line of
// code below it, and the viewer shows that line in its function beside the step of a session
// it made. `npm run build` collects them once and carries the table in the CLI
// (src/viewer/step-sources.ts), so a session viewed later shows the code of the build that
// wrote it. A malformed or repeated anchor throws, naming its file and line: the build fails.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";

/** A comment line that means to be an anchor, well formed or not. */
const ANCHOR_LINE = /^\s*\/\/\s*@step/;
const WELL_FORMED = /^\s*\/\/ @step ([a-z0-9_]+(?:\.[a-z0-9_]+)*): (\S.*?)\s*$/;
const ANONYMOUS = "(anonymous)";
/** A function this short is shown whole; a longer one as a window around the line. */
const WHOLE_FUNCTION_LINES = 16;
const LINES_BEFORE = 5;
const LINES_AFTER = 6;
/** The page's own sources run in the browser; no step of a session happens there. */
const SKIPPED = ["src", "viewer", "page"].join(sep);

/**
 * The anchors of `root`/src, sorted by key, with the id of the table (the first 12 hex digits
 * of its sha256: the same tree gives the same id) and the version in `root`/package.json.
 */
export function collectStepSources(root) {
  const found = new Map();
  for (const path of sourceFiles(join(root, "src"), join(root, SKIPPED))) {
    const text = readFileSync(path, "utf8");
    if (!text.includes("@step")) continue;
    const file = relative(root, path).split(sep).join("/");
    for (const source of anchorsIn(text, file)) {
      const earlier = found.get(source.key);
      if (earlier) {
        throw new Error(
          `${file}:${source.anchorLine}: the step anchor ${source.key} is already at ${earlier.file}:${earlier.anchorLine}; each key is used once.`,
        );
      }
      found.set(source.key, source);
    }
  }
  const keys = [...found.keys()].sort(inCodePointOrder);
  const sources = Object.fromEntries(
    keys.map((key) => {
      const { anchorLine: _, ...source } = found.get(key);
      return [key, source];
    }),
  );
  const id = createHash("sha256").update(JSON.stringify(sources)).digest("hex").slice(0, 12);
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return { id, version, sources };
}

/** Not the locale's order: the same tree sorts the same on every machine. */
function inCodePointOrder(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** In name order, so that the first of two anchors with one key is always the same one. */
function sourceFiles(directory, skipped) {
  const entries = readdirSync(directory, { withFileTypes: true });
  entries.sort((a, b) => inCodePointOrder(a.name, b.name));
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path === skipped ? [] : sourceFiles(path, skipped);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every anchor of one file, each with the excerpt of the function its line is in. */
function anchorsIn(text, file) {
  const lines = text.split(/\r?\n/);
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sources = [];
  for (const [index, content] of lines.entries()) {
    if (!ANCHOR_LINE.test(content)) continue;
    const anchorLine = index + 1;
    const match = WELL_FORMED.exec(content);
    if (!match) {
      throw new Error(
        `${file}:${anchorLine}: a step anchor reads "// @step KEY: one sentence", KEY in lowercase words joined by dots (loop.reply); this one reads "${content.trim()}".`,
      );
    }
    const [, key, note] = match;
    const position = codeAfter(sourceFile, index + 1);
    if (position === null) {
      throw new Error(
        `${file}:${anchorLine}: the step anchor ${key} has no line of code after it to point at.`,
      );
    }
    const line = sourceFile.getLineAndCharacterOfPosition(position).line + 1;
    const inside = enclosingFunction(sourceFile, position);
    const span = inside ? linesOf(sourceFile, inside) : { first: 1, last: lines.length };
    const whole = span.last - span.first + 1 <= WHOLE_FUNCTION_LINES;
    const firstLine = whole ? span.first : Math.max(span.first, line - LINES_BEFORE);
    const lastLine = whole ? span.last : Math.min(span.last, line + LINES_AFTER);
    sources.push({
      key,
      note,
      file,
      line,
      functionName: inside ? functionName(inside) : "(module)",
      firstLine,
      lines: lines.slice(firstLine - 1, lastLine),
      anchorLine,
    });
  }
  return sources;
}

/** Where the first token after the anchor starts (blank lines and comments skipped), or null. */
function codeAfter(sourceFile, lineIndex) {
  if (lineIndex >= sourceFile.getLineStarts().length) return null;
  const start = sourceFile.getPositionOfLineAndCharacter(lineIndex, 0);
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    true,
    ts.LanguageVariant.Standard,
    sourceFile.text,
    undefined,
    start,
  );
  const token = scanner.scan();
  return token === ts.SyntaxKind.EndOfFileToken ? null : scanner.getTokenStart();
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.Constructor,
]);

/**
 * The innermost named function the line starting at `position` belongs to. A callback with no
 * name (`batch.map((call) => ...)`) tells a reader less than the function that passes it, so
 * it is passed over for that one; it is named "(anonymous)" only when nothing named holds it.
 * A function that begins further along the line (`return list.map((item) => {`) is not it.
 */
function enclosingFunction(sourceFile, position) {
  let named = null;
  let innermost = null;
  const visit = (node) => {
    const isFunction = FUNCTION_KINDS.has(node.kind);
    // A function's name can come before it (`run: (input) =>`): its start is checked below.
    if (position >= node.end || (position < node.pos && !isFunction)) return;
    if (isFunction && startOf(node, sourceFile) <= position) {
      innermost = node;
      if (functionName(node) !== ANONYMOUS) named = node;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sourceFile, visit);
  return named ?? innermost;
}

/** Where a function begins, for a function assigned to a name where that assignment does. */
function startOf(node, sourceFile) {
  const holder = holderOf(node);
  const statement =
    holder && ts.isVariableDeclaration(holder) && ts.isVariableStatement(holder.parent.parent)
      ? holder.parent.parent
      : holder;
  return (statement ?? node).getStart(sourceFile);
}

function linesOf(sourceFile, node) {
  const lineAt = (position) => sourceFile.getLineAndCharacterOfPosition(position).line + 1;
  return { first: lineAt(startOf(node, sourceFile)), last: lineAt(node.end) };
}

/** runOneTurn, Class.method, the const or property an arrow is assigned to, or (anonymous). */
function functionName(node) {
  switch (node.kind) {
    case ts.SyntaxKind.FunctionDeclaration:
      return node.name?.text ?? ANONYMOUS;
    case ts.SyntaxKind.Constructor:
      return inClass(node, "constructor");
    case ts.SyntaxKind.MethodDeclaration:
    case ts.SyntaxKind.GetAccessor:
      return inClass(node, nameText(node.name));
    default: {
      const holder = holderOf(node);
      return holder ? holderName(holder) : (node.name?.text ?? ANONYMOUS);
    }
  }
}

function inClass(member, name) {
  const owner = member.parent;
  return ts.isClassLike(owner) && owner.name ? `${owner.name.text}.${name}` : name;
}

/** The variable, property or assignment a function expression is the value of, if any. */
function holderOf(node) {
  if (!ts.isFunctionExpression(node) && !ts.isArrowFunction(node)) return null;
  let value = node;
  while (
    ts.isParenthesizedExpression(value.parent) ||
    ts.isAsExpression(value.parent) ||
    ts.isSatisfiesExpression(value.parent)
  ) {
    value = value.parent;
  }
  const holder = value.parent;
  if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) return holder;
  if (ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) return holder;
  const assigns =
    ts.isBinaryExpression(holder) &&
    holder.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    (ts.isIdentifier(holder.left) || ts.isPropertyAccessExpression(holder.left));
  return assigns ? holder : null;
}

function holderName(holder) {
  if (ts.isVariableDeclaration(holder)) return holder.name.text;
  if (ts.isPropertyAssignment(holder)) return nameText(holder.name);
  if (ts.isPropertyDeclaration(holder)) return inClass(holder, nameText(holder.name));
  return ts.isIdentifier(holder.left) ? holder.left.text : holder.left.name.text;
}

function nameText(name) {
  return ts.isComputedPropertyName(name) ? name.getText() : name.text;
}
