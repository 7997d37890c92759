// The right panel: each message of messages[] exactly as JSON, as a collapsible tree. The
// messages new in a request are open; older ones fold to one line and build their body only
// when opened.

import type { Message } from "../../core/messages.js";
import { isKnownBlock } from "../known-block.js";
import { element, lazyDetails, setOpen } from "./dom.js";
import { formatCount } from "./format.js";

const LONG_STRING = 240;
const STRING_PREVIEW = 100;

export function renderMessageJson(message: Message, index: number): HTMLDetailsElement {
  const summary = element("summary", {}, [
    element("span", { className: "index" }, [`[${index}]`]),
    element("span", { className: "bracket" }, ["{ "]),
    element("span", { className: "preview" }, [messagePreview(message)]),
  ]);
  const body = () => {
    const fragment = document.createDocumentFragment();
    fragment.append(objectBody(message), element("div", { className: "close bracket" }, ["}"]));
    return fragment;
  };
  const node = lazyDetails(summary, body);
  node.className = "json-message";
  node.dataset.closed = "}";
  const ids = toolIds(message);
  if (ids.length > 0) node.dataset.toolIds = ids.join(" ");
  return node;
}

const openedAsNew = new WeakSet<HTMLDetailsElement>();

/** Opens a message while it is new; folds it again afterwards unless the reader opened it. */
export function showMessageAsNew(node: HTMLDetailsElement, isNew: boolean): void {
  if (isNew && !node.open) {
    setOpen(node, true);
    openedAsNew.add(node);
  } else if (!isNew && openedAsNew.delete(node)) {
    setOpen(node, false);
  }
}

function objectBody(value: object): HTMLElement {
  const entries = Array.isArray(value)
    ? value.map((item, index) => [null, item, index] as const)
    : Object.entries(value).map(([key, item], index) => [key, item, index] as const);
  const children = element("div", { className: "children" });
  for (const [key, item, index] of entries) {
    children.append(renderValue(key, item, index < entries.length - 1));
  }
  return children;
}

function renderValue(key: string | null, value: unknown, comma: boolean): HTMLElement {
  const label =
    key === null ? [] : [element("span", { className: "key" }, [JSON.stringify(key)]), ": "];
  const tail = comma ? "," : "";
  if (value !== null && typeof value === "object") {
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    const size = Array.isArray(value) ? value.length : Object.keys(value).length;
    const summary = element("summary", {}, [
      ...label,
      element("span", { className: "bracket" }, [open]),
    ]);
    const node = element("details", { open: true }, [
      summary,
      objectBody(value),
      element("div", { className: "close bracket" }, [close + tail]),
    ]);
    node.dataset.closed = `${size} ${size === 1 ? "item" : "items"} ${close}${tail}`;
    const id = blockToolId(value);
    if (id) node.dataset.toolId = id;
    return node;
  }
  const text = JSON.stringify(value) ?? "null";
  const kind =
    typeof value === "string" ? "string" : typeof value === "number" ? "number" : "literal";
  if (typeof value === "string" && text.length > LONG_STRING) {
    const preview = `${text.slice(0, STRING_PREVIEW)}…`;
    const summary = element("summary", {}, [
      ...label,
      element("span", { className: kind }, [preview]),
    ]);
    const node = lazyDetails(summary, () =>
      element("div", { className: "line" }, [element("span", { className: kind }, [text]), tail]),
    );
    node.className = "long";
    node.dataset.closed = `(${formatCount(value.length)} characters)${tail}`;
    return node;
  }
  return element("div", { className: "line" }, [
    ...label,
    element("span", { className: kind }, [text]),
    tail,
  ]);
}

function messagePreview(message: Message): string {
  if (typeof message.content === "string") {
    const text = message.content.replace(/\s+/g, " ");
    return `role: "${message.role}", content: "${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
  }
  return `role: "${message.role}", content: [${message.content.map(blockLabel).join(", ")}]`;
}

function blockLabel(block: unknown): string {
  if (!isKnownBlock(block)) return "unrecognised";
  switch (block.type) {
    case "text":
      return "text";
    case "tool_use":
      return `tool_use ${block.name}`;
    case "tool_result":
      return block.is_error ? "tool_result (error)" : "tool_result";
    case "thinking":
    case "redacted_thinking":
      return block.type;
    case "opaque":
      return String(block.item.type);
  }
}

function toolIds(message: Message): string[] {
  if (typeof message.content === "string") return [];
  return message.content.map(blockToolId).filter((id) => id !== null);
}

function blockToolId(block: unknown): string | null {
  if (!isKnownBlock(block)) return null;
  switch (block.type) {
    case "tool_use":
      return block.id;
    case "tool_result":
      return block.tool_use_id;
    case "text":
    case "thinking":
    case "redacted_thinking":
    case "opaque":
      return null;
  }
}
