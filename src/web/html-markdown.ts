// An HTML page as Markdown the model can read: node-html-markdown (a small, maintained
// converter on node-html-parser) does the conversion. It drops `<head>`, `<script>` and
// `<style>` by default (its `defaultIgnoreElements`); the elements below are dropped as well,
// since their text is code, markup or a fallback, never the page's content.

import { NodeHtmlMarkdown } from "node-html-markdown";

const ALSO_IGNORED = ["NOSCRIPT", "TEMPLATE", "SVG", "IFRAME", "OBJECT", "CANVAS", "SELECT"];

let converter: NodeHtmlMarkdown | undefined;

export interface MarkdownPage {
  title: string | null;
  markdown: string;
}

export function htmlToMarkdown(html: string): MarkdownPage {
  converter ??= new NodeHtmlMarkdown({ ignore: ALSO_IGNORED });
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  // The title through the converter too, so that its entities (&amp;) come out as text.
  const titleText = title === undefined ? "" : converter.translate(title).trim();
  return { title: titleText === "" ? null : titleText, markdown: converter.translate(html).trim() };
}
