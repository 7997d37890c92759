// Checks the links of a Markdown file the way GitHub resolves them: a relative link must name a
// file that exists, and a `#anchor` must name a heading of the page it points into.

import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { Lexer, marked, type Token } from "marked";

/** The anchor GitHub gives a heading: lowercase, punctuation removed (but `-` and `_`), spaces to `-`. */
export function githubAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a page's headings give it; a repeated heading gets `-1`, `-2`, ... as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const occurrences = new Map<string, number>();
  const anchors = new Set<string>();
  marked.walkTokens(Lexer.lex(markdown), (token) => {
    if (token.type !== "heading") return;
    const base = githubAnchor(plainText(token.tokens ?? []));
    let anchor = base;
    while (occurrences.has(anchor)) {
      const count = (occurrences.get(base) ?? 0) + 1;
      occurrences.set(base, count);
      anchor = `${base}-${count}`;
    }
    occurrences.set(anchor, 0);
    anchors.add(anchor);
  });
  return anchors;
}

/** The target of every Markdown link and image of a page, outside code (HTML `<a>` is not read). */
export function linksOf(markdown: string): string[] {
  const links: string[] = [];
  marked.walkTokens(Lexer.lex(markdown), (token) => {
    if (token.type === "link" || token.type === "image") links.push(token.href);
  });
  return links;
}

/** The links of the file at `path` that lead nowhere, each as one sentence naming it. */
export function brokenLinks(path: string): string[] {
  const problems: string[] = [];
  const name = relative(process.cwd(), path);
  const markdown = readFileSync(path, "utf8");
  for (const link of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(link)) continue; // https:, mailto: and the like
    const hash = link.indexOf("#");
    const file = decodeURIComponent(hash === -1 ? link : link.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(link.slice(hash + 1));
    const target = file === "" ? path : resolve(dirname(path), file);
    if (!existsSync(target)) {
      problems.push(`${name}: ${link} points at ${file}, which does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(target).isDirectory() || !target.endsWith(".md")) {
      problems.push(`${name}: ${link} has an anchor, but ${file} is not a Markdown page`);
      continue;
    }
    const page = target === path ? markdown : readFileSync(target, "utf8");
    if (!anchorsOf(page).has(anchor)) {
      const where = file === "" ? "this page" : file;
      problems.push(`${name}: ${link} names #${anchor}, which no heading of ${where} gives`);
    }
  }
  return problems;
}

/** The text a heading shows, without its Markdown: what GitHub makes the anchor from. */
function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if ("tokens" in token && token.tokens && token.tokens.length > 0)
        return plainText(token.tokens);
      if (token.type === "text" || token.type === "codespan" || token.type === "escape")
        return token.text;
      return "";
    })
    .join("");
}
