// Asks the person at the terminal whether what a project defines may run: an MCP server of its
// .mcp.json, the hooks of its settings, or its settings that widen what runs.
// src/mcp/approval.ts, src/hooks/trust.ts and src/permissions/project-approval.ts decide when to
// ask and remember the answer.

import type { Interface } from "node:readline";
import type { HookApprovalQuestion } from "../hooks/trust.js";
import { type McpApprovalQuestion, parseMcpAnswer } from "../mcp/approval.js";
import type { SettingsApprovalQuestion } from "../permissions/project-approval.js";
import { askQuestion, type Question } from "./question.js";

type Output = { write(text: string): unknown };

/**
 * Yes, no, or null for Ctrl-C. The REPL's readline writes to stdout (src/repl/terminal.ts), and
 * so does its question.
 */
export function terminalMcpAsk(readline: Interface, output: Output = process.stdout) {
  return approvalAsk(readline, output, mcpServerQuestion);
}

export function terminalHooksAsk(readline: Interface, output: Output = process.stdout) {
  return approvalAsk(readline, output, projectHooksQuestion);
}

export function terminalSettingsAsk(readline: Interface, output: Output = process.stdout) {
  return approvalAsk(readline, output, projectSettingsQuestion);
}

function approvalAsk<Asked>(
  readline: Interface,
  output: Output,
  questionOf: (asked: Asked) => Question,
) {
  return async (asked: Asked): Promise<boolean | null> => {
    const line = await askQuestion({ readline, output }, questionOf(asked));
    if (line !== null) return parseMcpAnswer(line);
    // Asked as the session starts, before the REPL hears Ctrl-C: the line is this one's to end.
    output.write("\n");
    return null;
  };
}

export function mcpServerQuestion(question: McpApprovalQuestion): Question {
  return {
    headline: `Allow the MCP server "${question.name}" from ${question.file} to start?`,
    code: [question.summary],
    detail: [
      "It would run with your permissions.",
      "The answer is remembered until its definition changes.",
    ],
    choices: "[y]es, [n]o:",
  };
}

export function projectHooksQuestion(question: HookApprovalQuestion): Question {
  return {
    headline: `Allow the hooks of ${question.file} to run?`,
    code: question.hooks,
    detail: [
      "They would run with your permissions, outside the sandbox, at each of these steps.",
      "The answer is remembered until they change.",
    ],
    choices: "[y]es, [n]o:",
  };
}

export function projectSettingsQuestion(question: SettingsApprovalQuestion): Question {
  return {
    headline: `Apply the settings of ${question.file}?`,
    code: question.widens,
    detail: [
      "The repository sets these: they would let the model do more than your own settings allow.",
      "Its deny and ask rules apply either way. The answer is remembered until these change.",
    ],
    choices: "[y]es, [n]o:",
  };
}
