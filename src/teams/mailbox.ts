// The team's mailboxes (course s13): one inbox per member, in this process's memory, since the
// whole team runs in it. A message waits in its reader's inbox until the reader's loop takes it
// between two tool rounds, or until it wakes the reader from idle; either way the reader sees it
// as text from a named member, never as the person's own words.

export interface TeamMessage {
  from: string;
  to: string;
  text: string;
}

export interface Inbox {
  /** The messages not read yet, oldest first, removed. */
  take(): TeamMessage[];
  /** How many wait. */
  size(): number;
  put(message: TeamMessage): void;
}

/** `arrived` hears each message put, after it is in the inbox. */
export function createInbox(arrived: () => void): Inbox {
  let waiting: TeamMessage[] = [];
  return {
    take() {
      const taken = waiting;
      waiting = [];
      return taken;
    },
    size: () => waiting.length,
    put(message) {
      waiting.push(message);
      arrived();
    },
  };
}

/**
 * A message as its reader's model reads it, in the shape Claude Code's teammates read theirs:
 * who wrote it, then the text.
 */
export function messageText(message: TeamMessage): string {
  return `<teammate-message from="${message.from}">\n${message.text}\n</teammate-message>`;
}
