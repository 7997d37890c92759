// The teams part (course s13), the lead's side: send_message for the lead, the messages of its
// team told to it between its tool rounds (the loop's notices), and, while it is idle, brought
// to it as its next prompt through the seam's voice (PartHost.queuePrompt): at the REPL when
// nothing else runs, in one-shot mode while a teammate still works. /team lists the members.
// Stopping the session stops the team.

import type { BackgroundAgents } from "../agents/agent-tool.js";
import type { PartHost, SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { CHAPTER as TASKS } from "../tasks/chapter.js";
import { messageText } from "./mailbox.js";
import { createSendMessage } from "./send-message.js";
import { createTeam, LEAD } from "./team.js";
import { teamLines } from "./team-lines.js";

export interface TeamsPart extends SessionPart {
  /** What the agent tool runs in the background: the teammates. */
  readonly agents: BackgroundAgents;
}

export function createTeamsPart(options: {
  env: NodeJS.ProcessEnv;
  /** --max-turns: a teammate's turns for each piece of work, at most. */
  maxTurns: number;
}): TeamsPart {
  let host: PartHost | undefined;
  // From the lead's first turn of a prompt until its loop stops: messages then wait for a round.
  let leadWorking = false;
  // Prompts queued with the team's messages that have not run yet.
  let wakes = 0;
  // Whether the team's stop was told already.
  let told = false;
  const team = createTeam({
    env: options.env,
    maxTurns: options.maxTurns,
    host: () => host,
    leadMail: () => wakeLead(),
  });
  // A lead always has send_message: turning teams on is what asks for it (as "tasks": true does
  // the board's tools), so it is in no default set and a session without a team never sees it.
  const tools: Tool[] = [createSendMessage(LEAD, team) as Tool];
  const none: Tool[] = [];

  /** The lead is idle and has messages: they become its next prompt. */
  function wakeLead() {
    if (!host || leadWorking || team.lead.size() === 0) return;
    const text = team.lead.take().map(messageText).join("\n\n");
    wakes += 1;
    // Through the seam's voice: at the REPL once nothing runs, in one-shot mode while work goes on.
    void host.queuePrompt({ text }).finally(() => {
      wakes -= 1;
    });
  }

  return {
    name: "teams",
    agents: team.agents,
    // The lead's only: a teammate gets its own send_message, as itself, from the team.
    tools: (offer) => (offer.forChild || host?.runsQueuedPrompts() === "never" ? none : tools),
    notices: () =>
      team.lead.take().map((message) => ({
        text: messageText(message),
        event: team.readEvent(LEAD, message.from),
      })),
    eventsAfter(event) {
      if (event.type === "turn_start") leadWorking = true;
      if (event.type === "stop") {
        leadWorking = false;
        wakeLead();
      }
      // The lead changed the board: an idle teammate may have a task to claim now.
      const board: readonly string[] = TASKS.tools;
      if (event.type === "tool_end" && board.includes(event.call.name)) team.boardChanged();
      return [];
    },
    attach(given) {
      host = given;
    },
    idle: () => wakeLead(),
    // One-shot mode goes on while a teammate works or its messages wait for the lead.
    workUnderWay: () => wakes > 0 || team.lead.size() > 0 || team.working(),
    status() {
      const teammates = team.teammates();
      if (teammates.length === 0) return null;
      const working = teammates.filter((teammate) => teammate.phase() === "working").length;
      return `${plural(teammates.length, "teammate")}, ${working} working`;
    },
    commands: [
      {
        name: "/team",
        argument: "",
        help: "the team: each teammate, what it is doing and what it cost",
        run: () => teamLines(team, leadWorking).join("\n"),
      },
    ],
    // One-shot mode ends the work, then closes the session, which ends it again: its events are
    // told once.
    async endWork() {
      const events = await team.stop();
      if (told) return [];
      told = true;
      return events;
    },
    async close() {
      await team.stop();
      return [];
    },
  };
}
