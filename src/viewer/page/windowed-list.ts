// Shows items [start, end) of a long list. Stepping grows or shrinks the list at its end, so a
// step costs only the items it adds or removes; a jump renders a fresh window of the latest
// items, and earlier ones appear a chunk at a time on request. A 10,000-message session
// therefore never has more than a few hundred items in the page.

import { scrollWithin } from "./dom.js";
import { formatCount } from "./format.js";

const WINDOW = 60;
const EARLIER_CHUNK = 100;
const MAX_RENDERED = 200;

export class WindowedList<Item extends HTMLElement> {
  private start = 0;
  private end = 0;
  /** nodes[i] shows item start + i. */
  private nodes: Item[] = [];
  private marked: Item[] = [];
  private isNew: (index: number) => boolean = () => false;
  private readonly earlier: HTMLButtonElement;

  constructor(
    private readonly container: HTMLElement,
    private readonly render: (index: number) => Item,
    /** Told when an item becomes new or stops being new. */
    private readonly onMarked: (node: Item, isNew: boolean) => void = () => {},
  ) {
    this.earlier = document.createElement("button");
    this.earlier.type = "button";
    this.earlier.className = "earlier";
    this.earlier.hidden = true;
    this.earlier.addEventListener("click", () => this.showEarlier());
    container.append(this.earlier);
  }

  /**
   * Shows items [.., end), marks those `isNew` says are new and scrolls the first new one into
   * view. `replaced` says the items are no longer those shown (another list of the same kind).
   */
  show(end: number, isNew: (index: number) => boolean, replaced = false): void {
    const remaining = end - this.start;
    const keepWindow =
      !replaced &&
      end >= this.start &&
      end <= this.end + WINDOW &&
      remaining >= Math.min(end, WINDOW / 2);
    this.isNew = isNew;
    if (!keepWindow) this.reset(end);
    else if (end > this.end) this.append(end);
    else this.truncate(end);
    if (this.end - this.start > MAX_RENDERED) this.dropBefore(this.end - WINDOW);
    this.markNew();
    this.updateEarlierButton();
    const focus = this.marked[0] ?? this.nodes.at(-1);
    if (focus) scrollWithin(this.container, focus);
  }

  private reset(end: number): void {
    for (const node of this.nodes) node.remove();
    this.nodes = [];
    this.start = Math.max(0, end - WINDOW);
    this.end = this.start;
    this.append(end);
  }

  private append(end: number): void {
    const fragment = document.createDocumentFragment();
    for (let index = this.end; index < end; index += 1) {
      const node = this.create(index);
      this.nodes.push(node);
      fragment.append(node);
    }
    this.container.append(fragment);
    this.end = end;
  }

  private truncate(end: number): void {
    while (this.end > end) {
      this.nodes.pop()?.remove();
      this.end -= 1;
    }
  }

  private dropBefore(start: number): void {
    const dropped = this.nodes.splice(0, start - this.start);
    for (const node of dropped) node.remove();
    this.start = start;
  }

  private showEarlier(): void {
    const from = Math.max(0, this.start - EARLIER_CHUNK);
    const created: Item[] = [];
    for (let index = from; index < this.start; index += 1) created.push(this.create(index));
    this.earlier.after(...created);
    // An earlier item can be new too, such as a result a compaction just replaced by a stub.
    const marked = created.filter((_, offset) => this.isNew(from + offset));
    for (const node of marked) this.mark(node);
    this.marked = marked.concat(this.marked);
    this.nodes = created.concat(this.nodes);
    this.start = from;
    this.updateEarlierButton();
  }

  private create(index: number): Item {
    const node = this.render(index);
    node.dataset.index = String(index);
    return node;
  }

  private markNew(): void {
    const marked = this.nodes.filter((_, offset) => this.isNew(this.start + offset));
    const stillNew = new Set(marked);
    for (const node of this.marked) {
      if (stillNew.has(node)) continue;
      node.classList.remove("new");
      this.onMarked(node, false);
    }
    for (const node of marked) this.mark(node);
    this.marked = marked;
  }

  private mark(node: Item): void {
    node.classList.add("new");
    this.onMarked(node, true);
  }

  private updateEarlierButton(): void {
    this.earlier.hidden = this.start === 0;
    const count = Math.min(EARLIER_CHUNK, this.start);
    this.earlier.textContent = `Show ${count} earlier (${formatCount(this.start)} not shown)`;
  }
}
