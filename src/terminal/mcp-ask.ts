// Asks the person at the terminal whether a server the project defines (.mcp.json) may start;
// src/mcp/approval.ts decides when to ask and remembers the answer.

import type { Interface } from "node:readline";
import { type McpApprovalQuestion, parseMcpAnswer } from "../mcp/approval.js";
import { askQuestion, type Question } from "./question.js";

/**
 * Yes, no, or null for Ctrl-C. The REPL's readline writes to stdout (src/repl/terminal.ts), and
 * so does its question.
 */
export function terminalMcpAsk(
  readline: Interface,
  output: { write(text: string): unknown } = process.stdout,
) {
  return async (question: McpApprovalQuestion): Promise<boolean | null> => {
    const line = await askQuestion({ readline, output }, mcpServerQuestion(question));
    if (line !== null) return parseMcpAnswer(line);
    // Asked as the session starts, before the REPL hears Ctrl-C: the line is this one's to end.
    output.write("\n");
    return null;
  };
}

export function mcpServerQuestion(question: McpApprovalQuestion): Question {
  return {
    headline: `Allow the MCP server "${question.name}" from ${question.file} to start?`,
    detail: [
      question.summary,
      "It would run with your permissions.",
      "The answer is remembered until its definition changes.",
    ],
    choices: "[y]es, [n]o:",
  };
}
