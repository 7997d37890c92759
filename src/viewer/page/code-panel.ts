// The third panel: the code behind what is shown. Beside a request, every beat of it (the request
// sent, the reply appended, each tool run, the results, a hook, a compaction...); in the lesson
// view, the one beat the replay is at. Clicking something in the conversation brings its code
// into view.

import type { Beat } from "../beats.js";
import { renderBeat, type Sources } from "./code-view.js";
import { element, scrollWithin } from "./dom.js";

export interface CodePanel {
  show(beats: readonly Beat[]): void;
  /** Marks the beats that did conversation item `item` and scrolls the first into view. */
  focusItem(item: number): void;
}

export function codePanel(container: HTMLElement, sources: Sources): CodePanel {
  let cards: HTMLElement[] = [];
  return {
    show(beats) {
      const shown = new Set<string>();
      cards = beats.map((beat) => renderBeat(beat, sources, shown));
      if (cards.length > 0) container.replaceChildren(...cards);
      else container.replaceChildren(element("p", { className: "empty" }, ["No code ran here."]));
      container.scrollTop = 0;
    },
    focusItem(item) {
      const focused = cards.filter((card) => card.dataset.item === String(item));
      for (const card of cards) card.classList.toggle("focused", focused.includes(card));
      if (focused[0]) scrollWithin(container, focused[0]);
    },
  };
}
