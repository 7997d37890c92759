// What a session asks of the person and tells them, whatever front end they use: the terminal
// (src/command-line/terminal-io.ts) implements it; a headless run answers no question.

import type { ApprovalContext } from "../core/approvals.js";
import type { HookTrustContext } from "../hooks/trust.js";
import type { McpApprovalContext } from "../mcp/approval.js";
import type { PermissionOptions } from "../permissions/policy.js";
import type { SettingsApprovalQuestion } from "../permissions/project-approval.js";
import type { ExitPlanModeOptions } from "../planning/exit-plan-mode.js";

export interface SessionIO {
  /**
   * Asks whether a tool call may run (yes, no, always). Present where a person can answer: the
   * session is then interactive, may enter plan mode, and starts in ask mode by default.
   */
  askPermission?: PermissionOptions["ask"];
  /** Asks whether a project's MCP server may start (asked only in ask mode). */
  approveMcpServer?: McpApprovalContext["ask"];
  /** Asks whether a project's settings may widen what runs (asked only in ask mode). */
  approveProjectSettings?: ApprovalContext<SettingsApprovalQuestion>["ask"];
  /** Asks whether a project's hooks may run (asked only in ask mode). */
  approveProjectHooks?: HookTrustContext["ask"];
  /** Shows the model's plan and asks to approve it (plan mode's exit_plan_mode). */
  approvePlan?: ExitPlanModeOptions["approve"];
  /** Tells the person something while the session runs, at once. */
  notice(sentence: string): void;
  /** The history was repaired before a request (said only where a person watches). */
  repaired(description: string): void;
  /** Where a local model's download shows its progress. */
  progress: NodeJS.WritableStream;
}
