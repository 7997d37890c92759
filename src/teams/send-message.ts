// send_message {to, text}: Claude Code's SendMessage, snake-cased, between the members of one
// team, addressed by name ("lead" for the session that started the teammates). A name that is
// not a member's is an error naming the members: no message waits in an inbox nobody reads.

import { failure, success, type Tool } from "../tools/tool.js";
import { CHAPTER } from "./chapter.js";

/** The team as a sender sees it: who is on it, and the send itself. */
export interface Post {
  members(): readonly string[];
  /** Puts the message in `to`'s inbox; else says why it cannot (no such member, one stopped). */
  send(from: string, to: string, text: string): string | null;
}

const [SEND_MESSAGE] = CHAPTER.tools;

export function createSendMessage(from: string, post: Post): Tool<{ to: string; text: string }> {
  return {
    name: SEND_MESSAGE,
    description:
      'Send a message to a member of your team, by name ("lead" is the agent that started the ' +
      "teammates). It reaches a working member between its steps and wakes an idle one. " +
      "Use it for what another member needs now; your final answer reaches the lead on its own.",
    inputSchema: {
      type: "object",
      properties: {
        to: { type: "string", description: 'The member\'s name, such as "lead" or "alice".' },
        text: { type: "string", description: "The message." },
      },
      required: ["to", "text"],
    },
    // It changes nothing in the workspace: it only puts text in an inbox.
    isReadOnly: () => true,
    async run(input) {
      const to = String(input.to ?? "").trim();
      const text = String(input.text ?? "").trim();
      if (text === "") return failure("The message is empty.");
      if (to === from) return failure(`You are ${from}: send to another member.`);
      const refused = post.send(from, to, text);
      return refused === null ? success(`Sent to ${to}.`) : failure(refused);
    },
  };
}
