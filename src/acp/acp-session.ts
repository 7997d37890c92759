// One ACP session: an agentloop session assembled as every front end's is, with the editor as
// its SessionIO. A prompt runs the session and streams its events as `session/update`s; a
// cancel aborts the turn and ends what it started; the mode is the permission mode.
// Prompt turns: https://agentclientprotocol.com/protocol/v1/prompt-turn

import { dirname, join } from "node:path";
import type {
  AgentContext,
  ContentBlock,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { type AssembledSession, assembleSession } from "../assembly/assemble.js";
import type { SessionOptions } from "../assembly/session-options.js";
import type { ToolUseBlock } from "../core/messages.js";
import { PERMISSION_MODES, parsePermissionMode } from "../permissions/policy.js";
import { modelFacts } from "../providers/model-table.js";
import { ignoredNotice, invocationOf } from "../skills/invocation.js";
import { type AskingTurn, acpIO, log } from "./acp-io.js";
import { type ConfigState, configChange, configOptions } from "./config-options.js";
import { acpStopReason, createEventUpdates } from "./event-updates.js";
import { historyUpdates } from "./history-updates.js";
import { promptText } from "./prompt-text.js";
import { announcedCall } from "./tool-calls.js";

const MODE_DESCRIPTIONS: Record<string, string> = {
  ask: "Asks before a change or a command that is not read-only",
  auto: "Runs commands in a sandbox without asking; refuses what it would ask about",
  "read-only": "Only looks: commands run where nothing is writable",
  yolo: "No sandbox and no questions; deny rules still hold",
  plan: "Looks, writes a plan, and asks you to approve it",
};

interface Turn {
  controller: AbortController;
  /** The calls announced and not yet finished, oldest first. */
  calls: ToolUseBlock[];
}

export type AcpSession = Awaited<ReturnType<typeof startAcpSession>>;

export async function startAcpSession(client: AgentContext, options: SessionOptions) {
  let turn: Turn | null = null;
  let sessionId = "";
  const notify = (update: SessionUpdate) => client.notify("session/update", { sessionId, update });
  const asking: AskingTurn = {
    get sessionId() {
      return sessionId;
    },
    callFor(tool): ToolCallUpdate | null {
      // Only one call that may change something runs at a time (the toolbox's batches), so the
      // question is about the latest announced call of that tool.
      const call = turn?.calls.findLast((each) => each.name === tool);
      return call ? announcedCall(call, options.cwd) : null;
    },
    signal: () => turn?.controller.signal,
    running: (toolCallId) =>
      void notify({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" }),
  };
  const assembled: AssembledSession = await assembleSession(
    options,
    acpIO(client, () => asking),
  );
  const { session, controls } = assembled;
  sessionId = session.id;
  for (const notice of assembled.notices) log(notice);
  let shownMode = controls.mode;

  /** Tells the editor of a mode the session changed itself (a plan approved). */
  const modeUpdates = async () => {
    if (controls.mode === shownMode) return;
    shownMode = controls.mode;
    await notify({ sessionUpdate: "current_mode_update", currentModeId: shownMode });
  };

  return {
    id: session.id,

    modes(): SessionModeState {
      return {
        currentModeId: controls.mode,
        availableModes: PERMISSION_MODES.map((id) => ({
          id,
          name: id,
          description: MODE_DESCRIPTIONS[id],
        })),
      };
    },

    /** The skills and custom commands, which a prompt "/name args" runs. */
    async announceCommands() {
      const availableCommands = controls.skills.skills.map((skill) => ({
        name: skill.name,
        description: skill.description,
        ...(skill.argumentHint ? { input: { hint: skill.argumentHint } } : {}),
      }));
      await notify({ sessionUpdate: "available_commands_update", availableCommands });
    },

    /** Replays the history of a loaded session. */
    async replay() {
      for (const update of historyUpdates(session.state.messages, options.cwd)) {
        await notify(update);
      }
    },

    /** The model and its thinking effort, as the editor's pickers show them. */
    async configOptions(): Promise<SessionConfigOption[]> {
      return configOptions(await configState());
    },

    /** Switches the model or the effort from the next request on; answers the options now. */
    async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
      const change = configChange(await configState(), configId, value);
      try {
        if ("model" in change) {
          // An effort chosen for the last model would make every request to one without fail.
          if (!modelFacts(change.model)?.effort && (await controls.effort())) {
            await controls.switchEffort(undefined);
          }
          await controls.switchModel(change.model);
        } else await controls.switchEffort(change.effort);
      } catch (error) {
        throw RequestError.invalidParams(undefined, (error as Error).message);
      }
      return configOptions(await configState());
    },

    async setMode(modeId: string) {
      try {
        await controls.switchMode(parsePermissionMode(modeId));
      } catch (error) {
        throw RequestError.invalidParams(undefined, (error as Error).message);
      }
      shownMode = controls.mode;
    },

    async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
      if (turn)
        throw RequestError.invalidRequest(
          undefined,
          "A prompt is already running in this session.",
        );
      const text = promptText(blocks, join(dirname(assembled.sessionPath), session.id, "images"));
      const invocation = invocationOf(text, controls.skills, controls.loadedSkills);
      const ignored = invocation && ignoredNotice(invocation.skill);
      if (ignored) log(ignored);
      if (invocation?.skill.model) {
        await controls.switchModel(invocation.skill.model);
        // The editor's model picker follows the skill's model.
        const options = configOptions(await configState());
        await notify({ sessionUpdate: "config_option_update", configOptions: options });
      }
      const current: Turn = { controller: new AbortController(), calls: [] };
      turn = current;
      const updatesOf = createEventUpdates(options.cwd);
      try {
        const run = session.runPrompt(invocation?.prompt ?? text, current.controller.signal);
        while (true) {
          const step = await run.next();
          if (step.done) {
            const reason = current.controller.signal.aborted
              ? "cancelled"
              : acpStopReason(step.value.reason);
            if (reason === null) throw RequestError.internalError(undefined, step.value.detail);
            if (step.value.reason !== "end_turn") log(step.value.detail);
            return reason;
          }
          const event = step.value;
          if (event.type === "tool_start") current.calls.push(event.call);
          if (event.type === "tool_end") {
            current.calls = current.calls.filter((call) => call.id !== event.call.id);
          }
          for (const update of updatesOf(event)) await notify(update);
          if (event.type === "assistant_message") await usageUpdate();
          await modeUpdates();
        }
      } finally {
        // A cancelled turn ends everything it started, background tasks included.
        if (current.controller.signal.aborted) await session.endWork();
        turn = null;
      }
    },

    cancel() {
      turn?.controller.abort();
    },

    close: () => session.close(),
  };

  async function configState(): Promise<ConfigState> {
    return { provider: controls.provider, model: session.model, effort: await controls.effort() };
  }

  async function usageUpdate() {
    const fill = session.contextFill();
    if (!fill) return;
    const cost = session.cost();
    await notify({
      sessionUpdate: "usage_update",
      used: fill.tokens,
      size: fill.contextWindow,
      ...(cost === null ? {} : { cost: { amount: cost, currency: "USD" } }),
    });
  }
}
