// Shows items [start, end) of a long list. Stepping grows or shrinks the list at its end, so a
// step costs only the items it adds or removes; a jump renders a fresh window of the latest
// items, and earlier ones appear a chunk at a time on request. A 10,000-message session
// therefore never has more than a few hundred items in the page.

import { formatCount } from "./format.js";

const WINDOW = 60;
const EARLIER_CHUNK = 100;
const MAX_RENDERED = 200;

export type RenderItem = (index: number, isNew: boolean) => HTMLElement;

export class WindowedList {
  private start = 0;
  private end = 0;
  private newFrom = 0;
  /** nodes[i] shows item start + i. */
  private nodes: HTMLElement[] = [];
  private marked: HTMLElement[] = [];
  private readonly earlier: HTMLButtonElement;

  constructor(
    private readonly container: HTMLElement,
    private readonly render: RenderItem,
  ) {
    this.earlier = document.createElement("button");
    this.earlier.type = "button";
    this.earlier.className = "earlier";
    this.earlier.hidden = true;
    this.earlier.addEventListener("click", () => this.showEarlier());
    container.append(this.earlier);
  }

  /** Shows items [.., end), marks [newFrom, end) as new and scrolls the first new one into view. */
  show(end: number, newFrom: number): void {
    this.newFrom = newFrom;
    const remaining = end - this.start;
    const keepWindow =
      end >= this.start && end <= this.end + WINDOW && remaining >= Math.min(end, WINDOW / 2);
    if (!keepWindow) this.reset(end);
    else if (end > this.end) this.append(end);
    else this.truncate(end);
    if (this.end - this.start > MAX_RENDERED) this.dropBefore(this.end - WINDOW);
    this.markNew();
    this.updateEarlierButton();
    const focus = this.marked[0] ?? this.nodes.at(-1);
    focus?.scrollIntoView({ block: "start" });
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
    const created: HTMLElement[] = [];
    for (let index = from; index < this.start; index += 1) created.push(this.create(index));
    this.earlier.after(...created);
    this.nodes = created.concat(this.nodes);
    this.start = from;
    this.updateEarlierButton();
  }

  private create(index: number): HTMLElement {
    const node = this.render(index, index >= this.newFrom);
    node.dataset.index = String(index);
    return node;
  }

  private markNew(): void {
    for (const node of this.marked) node.classList.remove("new");
    this.marked = this.nodes.slice(Math.max(0, this.newFrom - this.start));
    for (const node of this.marked) node.classList.add("new");
  }

  private updateEarlierButton(): void {
    this.earlier.hidden = this.start === 0;
    const count = Math.min(EARLIER_CHUNK, this.start);
    this.earlier.textContent = `Show ${count} earlier (${formatCount(this.start)} not shown)`;
  }
}
