// Images in the words of a model that cannot see them: each image part of a tool result
// becomes one line of text saying what it was. A local model, and a hosted one the model
// table marks as taking text only, get the history this way, so nothing they cannot read is
// ever sent to them.

import type { ImageBlock, Message, ToolResultPart } from "../core/messages.js";
import { count } from "../core/wording.js";
import { formatOf } from "./image-kind.js";

/** `[image: PNG, 1,234 bytes]`, and why it is not shown when there is a reason. */
export function imageNote(image: ImageBlock, why?: string): string {
  const bytes = count(Buffer.byteLength(image.data, "base64"));
  return `[image: ${formatOf(image.mediaType)}, ${bytes} bytes${why ? `; ${why}` : ""}]`;
}

const NOT_SEEN = "not shown: this model does not take images";

/** The history with every image replaced by its note; the same array when it holds none. */
export function describeImages(messages: Message[]): Message[] {
  if (!messages.some(hasImage)) return messages;
  return messages.map((message) => {
    if (message.role !== "user" || !hasImage(message)) return message;
    const content = (message.content as Exclude<typeof message.content, string>).map((block) => {
      if (block.type !== "tool_result" || typeof block.content === "string") return block;
      return { ...block, content: block.content.map(asText) };
    });
    return { role: "user", content };
  });
}

function asText(part: ToolResultPart): ToolResultPart {
  return part.type === "image" ? { type: "text", text: imageNote(part, NOT_SEEN) } : part;
}

function hasImage(message: Message): boolean {
  if (message.role !== "user" || typeof message.content === "string") return false;
  return message.content.some(
    (block) =>
      block.type === "tool_result" &&
      typeof block.content !== "string" &&
      block.content.some((part) => part.type === "image"),
  );
}
