// A tool_use and its tool_result share an id. Hovering either (in either panel) lights up
// every element with that id; clicking one keeps it lit until clicked again.

export interface ToolLinks {
  /** Re-applies the highlight to elements rendered since. */
  refresh(): void;
}

export function linkToolCalls(root: HTMLElement): ToolLinks {
  let hovered: string | null = null;
  let selected: string | null = null;

  const refresh = () => {
    for (const node of root.querySelectorAll(".linked")) node.classList.remove("linked");
    const id = hovered ?? selected;
    if (id === null) return;
    const quoted = `"${CSS.escape(id)}"`;
    for (const node of root.querySelectorAll(
      `[data-tool-id=${quoted}], [data-tool-ids~=${quoted}]`,
    )) {
      node.classList.add("linked");
    }
  };

  root.addEventListener("mouseover", (event) => {
    const id = toolIdAt(event.target);
    if (id === hovered) return;
    hovered = id;
    refresh();
  });
  root.addEventListener("mouseleave", () => {
    hovered = null;
    refresh();
  });
  root.addEventListener("click", (event) => {
    const id = toolIdAt(event.target);
    if (id === null) return;
    selected = selected === id ? null : id;
    refresh();
  });
  return { refresh };
}

function toolIdAt(target: EventTarget | null): string | null {
  if (!(target instanceof Element)) return null;
  return target.closest<HTMLElement>("[data-tool-id]")?.dataset.toolId ?? null;
}
