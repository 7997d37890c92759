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

/** A <details> whose body is built the first time it opens, so closed ones stay cheap. */
export function lazyDetails(
  summary: HTMLElement,
  body: () => Node,
  open: boolean,
): HTMLDetailsElement {
  const details = element("details", {}, [summary]);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    details.append(body());
  };
  if (open) {
    build();
    details.open = true;
  } else {
    details.addEventListener("toggle", () => details.open && build());
  }
  return details;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the viewer page has no #${id}`);
  return node as T;
}
