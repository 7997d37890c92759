// Syntax highlighting for fenced code blocks: lowlight runs highlight.js's grammars (its 37
// common languages) and hands back a tree of scopes, which a small theme turns into colours.

import { common, createLowlight } from "lowlight";

type Lowlight = ReturnType<typeof createLowlight>;
type HighlightNode = ReturnType<Lowlight["highlight"]>["children"][number];

/** Foreground colour (SGR code) for each highlight.js scope; unlisted scopes stay plain. */
const THEME: Record<string, string> = {
  keyword: "35",
  "selector-tag": "35",
  doctag: "35",
  built_in: "36",
  type: "36",
  class: "36",
  attr: "36",
  attribute: "36",
  property: "36",
  title: "34",
  section: "34",
  name: "34",
  "selector-id": "34",
  "selector-class": "34",
  string: "32",
  regexp: "32",
  symbol: "32",
  char: "32",
  addition: "32",
  number: "33",
  literal: "33",
  bullet: "33",
  deletion: "31",
  comment: "90",
  quote: "90",
  meta: "90",
  tag: "90",
};

let lowlight: Lowlight | undefined;

/** The lines of `code`, coloured when `language` names a grammar lowlight knows. */
export function highlightCode(code: string, language: string | undefined): string[] {
  const name = language?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!name) return code.split("\n");
  // Registering the grammars costs about 10 ms, so it waits for the first code block.
  lowlight ??= createLowlight(common);
  if (!lowlight.registered(name)) return code.split("\n");

  const lines = [""];
  const visit = (nodes: readonly HighlightNode[], colour: string | undefined) => {
    for (const node of nodes) {
      if (node.type === "text") {
        node.value.split("\n").forEach((part, index) => {
          if (index > 0) lines.push("");
          if (part) lines[lines.length - 1] += colour ? `\x1b[${colour}m${part}\x1b[39m` : part;
        });
      } else if (node.type === "element") {
        const classes = node.properties.className;
        const scope = String(Array.isArray(classes) ? classes[0] : classes).replace(/^hljs-/, "");
        visit(node.children, THEME[scope] ?? colour);
      }
    }
  };
  visit(lowlight.highlight(name, code).children, undefined);
  return lines;
}
