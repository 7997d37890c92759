// One beat beside its code: what it did, then for each anchor it names the anchor's sentence, the
// function, file and line, and the lines around it with the line that did it highlighted.

import type { StepSource } from "../../core/step-sources.js";
import type { Beat } from "../beats.js";
import { element } from "./dom.js";

const ANCHOR = /^\s*\/\/ @step /;

export type Sources = Record<string, StepSource>;

/**
 * `shown`: the keys whose lines are already on the panel. Ten tool calls in one request run the
 * same lines ten times; after the first, a key shows only its note and where it is.
 */
export function renderBeat(beat: Beat, sources: Sources, shown = new Set<string>()): HTMLElement {
  const heading = [element("span", { className: "beat-kind" }, [beatKind(beat)])];
  if (beat.label) heading.push(element("code", { className: "beat-label" }, [beat.label]));
  if (beat.transition) {
    heading.push(
      element("span", { className: "transition" }, [`transition_reason: ${beat.transition}`]),
    );
  }
  const card = element("article", { className: "beat" }, [
    element("header", {}, heading),
    ...beat.code.map((key) => {
      const excerpt = renderExcerpt(key, sources[key], !shown.has(key));
      shown.add(key);
      return excerpt;
    }),
  ]);
  card.dataset.item = String(beat.item);
  if (beat.lesson !== null) card.dataset.lesson = String(beat.lesson);
  if (beat.call) card.dataset.toolId = beat.call;
  return card;
}

function beatKind(beat: Beat): string {
  return beat.lesson === null ? `beside the loop: ${beat.code[0]}` : `step ${beat.lesson} of 5`;
}

function renderExcerpt(
  key: string,
  source: StepSource | undefined,
  withLines: boolean,
): HTMLElement {
  if (!source) {
    return element("p", { className: "excerpt missing" }, [
      `No code is marked `,
      element("code", {}, [key]),
      " in this version of agentloop.",
    ]);
  }
  const lines = withLines ? [element("pre", { className: "code" }, codeLines(source))] : [];
  const excerpt = element("section", { className: "excerpt" }, [
    element("p", { className: "note" }, [source.note]),
    element("p", { className: "where" }, [
      element("code", { className: "function" }, [source.functionName]),
      " · ",
      element("span", { className: "file" }, [`${source.file}:${source.line}`]),
      ...(withLines ? [] : [" · its lines are shown above"]),
    ]),
    ...lines,
  ]);
  excerpt.dataset.key = key;
  return excerpt;
}

/**
 * The excerpt's lines, numbered, the acting one lit; the anchors' own comments left out, each
 * run of lines left out marked with a `⋮` where the numbers skip, so a gap never reads as code
 * that is missing.
 */
function codeLines(source: StepSource): HTMLElement[] {
  const indent = commonIndent(source.lines);
  const shown: HTMLElement[] = [];
  let skipped = false;
  source.lines.forEach((text, offset) => {
    // An anchor's comment says what the note above already says.
    if (ANCHOR.test(text)) {
      skipped = true;
      return;
    }
    const number = source.firstLine + offset;
    // A gap at the very top says nothing: the excerpt starts where its numbers start.
    if (skipped && shown.length > 0) shown.push(numberedLine("⋮", "", "line gap"));
    skipped = false;
    const line = numberedLine(
      String(number),
      text.slice(indent),
      number === source.line ? "line here" : "line",
    );
    if (/^\s*\/\//.test(text)) line.classList.add("comment");
    shown.push(line);
  });
  return shown;
}

function numberedLine(number: string, text: string, className: string): HTMLElement {
  return element("span", { className }, [element("span", { className: "number" }, [number]), text]);
}

function commonIndent(lines: readonly string[]): number {
  const indents = lines
    .filter((line) => line.trim() !== "")
    .map((line) => line.length - line.trimStart().length);
  return indents.length === 0 ? 0 : Math.min(...indents);
}
