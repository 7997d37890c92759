// Small helpers for building DOM nodes without a framework.

type Child = Node | string;

export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  properties: Partial<HTMLElementTagNameMap[Tag]> = {},
  children: Child[] = [],
): HTMLElementTagNameMap[Tag] {
  const node = Object.assign(document.createElement(tag), properties);
  node.append(...children);
  return node;
}

const unbuiltBodies = new WeakMap<HTMLDetailsElement, () => void>();

/** A closed <details> whose body is built the first time it opens, so closed ones stay cheap. */
export function lazyDetails(summary: HTMLElement, body: () => Node): HTMLDetailsElement {
  const details = element("details", {}, [summary]);
  const build = () => {
    unbuiltBodies.delete(details);
    details.append(body());
  };
  unbuiltBodies.set(details, build);
  details.addEventListener("toggle", () => details.open && unbuiltBodies.get(details)?.());
  return details;
}

/** Opens or closes a details element, building a lazy body now rather than on "toggle",
 * which fires later, after the page has been laid out and scrolled. */
export function setOpen(details: HTMLDetailsElement, open: boolean): void {
  if (open) unbuiltBodies.get(details)?.();
  details.open = open;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the viewer page has no #${id}`);
  return node as T;
}

/**
 * Scrolls `container` so that `node` is at its top. Unlike scrollIntoView it moves no other
 * scrolling box: on a phone, where the page itself scrolls, stepping must not move the page.
 */
export function scrollWithin(container: HTMLElement, node: HTMLElement): void {
  container.scrollTop += node.getBoundingClientRect().top - container.getBoundingClientRect().top;
}
