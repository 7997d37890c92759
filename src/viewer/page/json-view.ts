// The right panel: each message of messages[] exactly as JSON, as a collapsible tree. A closed
// message renders its body only when first opened, so older messages cost one line each.

import type { Message } from "../../messages.js";
import { element, lazyDetails } from "./dom.js";
import { formatCount } from "./format.js";

const LONG_STRING = 240;
const STRING_PREVIEW = 100;

export function renderMessageJson(message: Message, index: number, open: boolean): HTMLElement {
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
  const node = lazyDetails(summary, body, open);
  node.className = "json-message";
  node.dataset.closed = "}";
  const ids = toolIds(message);
  if (ids.length > 0) node.dataset.toolIds = ids.join(" ");
  return node;
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
    const node = lazyDetails(
      summary,
      () =>
        element("div", { className: "line" }, [element("span", { className: kind }, [text]), tail]),
      false,
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

function blockLabel(block: Message["content"][number]): string {
  if (typeof block === "string") return "text";
  switch (block.type) {
    case "text":
      return "text";
    case "tool_use":
      return `tool_use ${block.name}`;
    case "tool_result":
      return block.is_error ? "tool_result (error)" : "tool_result";
  }
}

function toolIds(message: Message): string[] {
  if (typeof message.content === "string") return [];
  return message.content.map(blockToolId).filter((id) => id !== null);
}

function blockToolId(value: object): string | null {
  const block = value as { type?: unknown; id?: unknown; tool_use_id?: unknown };
  if (block.type === "tool_use" && typeof block.id === "string") return block.id;
  if (block.type === "tool_result" && typeof block.tool_use_id === "string")
    return block.tool_use_id;
  return null;
}
