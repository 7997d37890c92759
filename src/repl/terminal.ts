// The terminal the REPL reads from: readline with the input history of earlier sessions and
// completion of the slash commands.

import { createInterface, type Interface } from "node:readline";
import { sessionIds } from "../session/session-file.js";
import {
  HISTORY_SIZE,
  historyPath,
  type InputHistory,
  openInputHistory,
} from "../terminal/input-history.js";
import { completeInput } from "./commands.js";

export interface ReplTerminal {
  readline: Interface;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  history: InputHistory;
}

export function openReplTerminal(where: {
  cwd: string;
  sessionsDirectory: string;
  /** The skills and custom commands, as `/name`: known once the session has started. */
  moreCommands: () => string[];
}): ReplTerminal {
  const history = openInputHistory(historyPath());
  const ids = () => sessionIds(where.sessionsDirectory, where.cwd);
  const readline = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    history: history.entries,
    historySize: HISTORY_SIZE,
    completer: (line: string) =>
      completeInput(line, { sessionIds: ids, moreCommands: where.moreCommands }),
  });
  return { readline, input: process.stdin, output: process.stdout, history };
}
