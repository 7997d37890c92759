// The REPL as the CLI starts it, with one more part after SESSION_PARTS, added the way
// docs/library.md tells a library user to: `assembleSession(options, io, [...SESSION_PARTS,
// entry])`. The part, "knock", uses the seam's voice: `/knock WORD` announces an event and
// queues a prompt at once; `/knock-later WORD` queues it a second later, from a timer. Run in a
// pseudo-terminal by test/part-voice.e2e.test.ts, with tsx, from the sources.

import { assembleSession } from "../../src/assembly/assemble.js";
import { type PartEntry, SESSION_PARTS } from "../../src/assembly/parts.js";
import { parseCommandLine } from "../../src/command-line/config.js";
import { terminalIO } from "../../src/command-line/setup.js";
import type { PartHost, SessionPart } from "../../src/core/part.js";
import { runRepl } from "../../src/repl/repl.js";
import { openReplTerminal } from "../../src/repl/terminal.js";
import { sessionsDirectory } from "../../src/session/session-file.js";
import { createProgress } from "../../src/terminal/progress.js";
import { loadTextWidth } from "../../src/terminal/text-width.js";

function knockPart(): SessionPart {
  let host: PartHost | undefined;
  const knock = (word: string) => {
    host?.queuePrompt({ text: `who is there? ${word}` }).then((outcome) => {
      const how = outcome.ran ? outcome.stop.reason : "not run";
      host?.announce([{ type: "part", part: "knock", name: "answered", line: `answered ${how}` }]);
    });
  };
  return {
    name: "knock",
    attach(given) {
      host = given;
    },
    commands: [
      {
        name: "/knock",
        argument: "WORD",
        help: "knock now",
        run(word) {
          host?.announce([
            { type: "part", part: "knock", name: "knocked", line: `knocked ${word}` },
          ]);
          knock(word);
          return `knocking (${host?.runsQueuedPrompts()})`;
        },
      },
      {
        name: "/knock-later",
        argument: "WORD",
        help: "knock in a second",
        run(word) {
          setTimeout(() => knock(word), 1000);
          return "knocking in a second";
        },
      },
    ],
  };
}

const entry: PartEntry = { name: "knock", start: async () => knockPart() };

const command = parseCommandLine(process.argv.slice(2));
if (command.command !== "run") throw new Error("repl-with-part runs the REPL only");
const where = { cwd: command.cwd, sessionsDirectory: sessionsDirectory() };
const terminal = openReplTerminal({ ...where, moreCommands: () => [] });
const progress = createProgress({
  output: process.stdout,
  enabled: true,
  color: false,
  runningTasks: () => 0,
});
// A terminal run measures text, as the CLI does once it knows it writes to one.
await loadTextWidth();
const { session, controls, sessionPath } = await assembleSession(
  command,
  terminalIO(terminal.readline, progress.hold),
  [...SESSION_PARTS, entry],
);
const code = await runRepl({
  session,
  controls,
  terminal,
  color: false,
  sessionPath,
  progress,
  ...where,
});
setImmediate(() => process.exit(code));
