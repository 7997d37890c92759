// One bad image must not poison a session. When the API answers 400 about an image (too big,
// a type it does not take, bytes it cannot decode: "image exceeds 5 MB maximum", "Could not
// process image", "Invalid image data"), the newest image in the history is replaced by a line
// saying so, the repair is reported like the transcript's other repairs, and the request is
// sent again, once. Any other error, or a second rejection, goes to the loop as before.

import { ProviderError } from "../core/errors.js";
import type { Message, ToolResultPart } from "../core/messages.js";
import { imageNote } from "../images/describe-images.js";
import type { Provider } from "./provider.js";

export function withImageRepair<P extends Provider>(
  provider: P,
  onRepair: (description: string) => void = () => {},
): P {
  return {
    ...provider,
    stream: async function* (request) {
      try {
        return yield* provider.stream(request);
      } catch (error) {
        if (!isAboutAnImage(error) || !replaceNewestImage(request.messages, error)) throw error;
        onRepair(
          `The API rejected an image (${error.message}); the newest image was replaced by a note and the request sent again.`,
        );
        yield { type: "retry", attempt: 2, delayMs: 0, reason: "the API rejected an image" };
        return yield* provider.stream(request);
      }
    },
  };
}

function isAboutAnImage(error: unknown): error is ProviderError {
  return (
    error instanceof ProviderError &&
    error.kind === "invalid_request" &&
    /\bimage/i.test(error.message)
  );
}

/** Replaces, in place, the last image of the history with a note; false when there is none. */
function replaceNewestImage(messages: Message[], error: ProviderError): boolean {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (let at = message.content.length - 1; at >= 0; at -= 1) {
      const block = message.content[at];
      if (block?.type !== "tool_result" || typeof block.content === "string") continue;
      const position = block.content.findLastIndex((part) => part.type === "image");
      if (position === -1) continue;
      const image = block.content[position] as ToolResultPart & { type: "image" };
      const note: ToolResultPart = {
        type: "text",
        text: imageNote(image, `removed: the API rejected it (${error.message})`),
      };
      const parts = block.content.with(position, note);
      const content = message.content.with(at, { ...block, content: parts });
      messages[index] = { role: "user", content };
      return true;
    }
  }
  return false;
}
