// What the model is told when a background task ends: Claude Code's <task-notification>
// (https://code.claude.com/docs/en/agent-sdk/typescript lists its task_id, status, summary and
// output_file; its status names are completed, failed and killed), with the exit code and the
// end of the output added, so that a failure can be seen without reading the file
// (anthropics/claude-code#21191 and the requests around it).

import type { BackgroundTask } from "../core/background-task.js";

export interface NoticeFacts {
  task: BackgroundTask;
  /** One sentence: how it ended. */
  summary: string;
  /** The end of its output, cleaned. */
  tail: string;
}

export function taskNotice({ task, summary, tail }: NoticeFacts): string {
  const lines = [
    "<task-notification>",
    `<task-id>${task.task_id}</task-id>`,
    `<command>${escapeXml(task.command)}</command>`,
    `<status>${task.status}</status>`,
    ...(task.exit_code === null ? [] : [`<exit-code>${task.exit_code}</exit-code>`]),
    `<summary>${escapeXml(summary)}</summary>`,
    `<output-tail>\n${escapeXml(tail || "(no output)")}\n</output-tail>`,
    `<output-file>${escapeXml(task.output_file)}</output-file>`,
    "</task-notification>",
  ];
  return lines.join("\n");
}

/** So that nothing a command prints can close the notification early or forge another. */
function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
