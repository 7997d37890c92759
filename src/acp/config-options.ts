// The session's settings an editor shows and changes as ACP session config options: the model
// (category `model`) and, where the model takes one, the thinking effort (`thought_level`).
// https://agentclientprotocol.com/protocol/v1/session-config-options

import type { SessionConfigOption, SessionConfigSelectOption } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { modelFacts, tableModelNames } from "../providers/model-table.js";
import { EFFORTS, type Effort } from "../providers/thinking-options.js";

export const MODEL_OPTION = "model";
export const EFFORT_OPTION = "effort";
/** The effort value that asks for none, so that the model thinks as it does by default. */
const DEFAULT_EFFORT = "default";

/** The model-table names that run on a provider preset, by the prefixes its models carry. */
const PRESET_MODELS: Record<string, (name: string) => boolean> = {
  anthropic: (name) => name.startsWith("claude-"),
  openai: (name) => /^(gpt-|o\d)/.test(name),
  deepseek: (name) => name.startsWith("deepseek-"),
};

/** What the options are made from: the session as it stands now. */
export interface ConfigState {
  provider: string;
  model: string;
  effort: Effort | undefined;
}

/**
 * The model picker's choices: the models of the table that this provider serves, with the
 * current one first when the table does not know it (a local server's model, a newer name).
 */
export function modelChoices(provider: string, current: string): string[] {
  const serves = PRESET_MODELS[provider];
  const known = serves ? tableModelNames().filter(serves) : [];
  return known.includes(current) ? known : [current, ...known];
}

export function configOptions(state: ConfigState): SessionConfigOption[] {
  const models: SessionConfigSelectOption[] = modelChoices(state.provider, state.model).map(
    (name) => ({ value: name, name }),
  );
  const options: SessionConfigOption[] = [
    {
      type: "select",
      id: MODEL_OPTION,
      name: "Model",
      description: `The ${state.provider} model the next requests go to`,
      category: "model",
      currentValue: state.model,
      options: models,
    },
  ];
  if (modelFacts(state.model)?.effort) {
    options.push({
      type: "select",
      id: EFFORT_OPTION,
      name: "Thinking effort",
      description: "How hard the model thinks; the default is the model's own",
      category: "thought_level",
      currentValue: state.effort ?? DEFAULT_EFFORT,
      options: [
        { value: DEFAULT_EFFORT, name: "the model's default" },
        ...EFFORTS.map((effort) => ({ value: effort, name: effort })),
      ],
    });
  }
  return options;
}

/** The change a `session/set_config_option` asks for, or the invalid-params error it gets. */
export type ConfigChange = { model: string } | { effort: Effort | undefined };

export function configChange(state: ConfigState, configId: string, given: unknown): ConfigChange {
  // A harness names models as "provider/model" (Harbor's -m anthropic/claude-sonnet-5-5).
  const prefix = `${state.provider}/`;
  const value =
    configId === MODEL_OPTION && typeof given === "string" && given.startsWith(prefix)
      ? given.slice(prefix.length)
      : given;
  const option = configOptions(state).find((each) => each.id === configId);
  if (!option) {
    throw RequestError.invalidParams(undefined, `This session has no config option "${configId}".`);
  }
  // The options here are flat lists, never groups.
  const allowed =
    option.type === "select"
      ? option.options.flatMap((each) => ("value" in each ? [each.value] : []))
      : [];
  if (typeof value !== "string" || !allowed.includes(value)) {
    throw RequestError.invalidParams(
      undefined,
      `"${configId}" takes one of ${allowed.join(", ")}; got ${JSON.stringify(value)}.`,
    );
  }
  if (configId === MODEL_OPTION) return { model: value };
  return { effort: value === DEFAULT_EFFORT ? undefined : (value as Effort) };
}
