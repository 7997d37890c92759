// What the model is told when a background task ends: the <task_notification> block the issue
// and the course name (Claude Code spells it <task-notification>), the block its TaskOutput
// tool description promises "with the same path" as the output file
// (https://context-audit.tj-zhang.com/tools/task-output/), with the fields of its stream's
// task_notification message: task_id, status, summary, output_file
// (https://hexdocs.pm/claude_code/ClaudeCode.Message.SystemMessage.TaskNotification.html).
// Its task states are pending, running, completed, failed and killed
// (https://www.markdown.engineering/learn-claude-code/14-task-system); timed_out is ours. The
// exit code and the end of the output are added, so that a failure is seen without reading the
// file, as its users ask (https://github.com/anthropics/claude-code/issues/21191).

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
    "<task_notification>",
    `<task_id>${task.task_id}</task_id>`,
    `<command>${escapeXml(task.command)}</command>`,
    `<status>${task.status}</status>`,
    ...(task.exit_code === null ? [] : [`<exit_code>${task.exit_code}</exit_code>`]),
    `<summary>${escapeXml(summary)}</summary>`,
    `<output_tail>\n${escapeXml(tail || "(no output)")}\n</output_tail>`,
    `<output_file>${escapeXml(task.output_file)}</output_file>`,
    "</task_notification>",
  ];
  return lines.join("\n");
}

/** So that nothing a command prints can close the notification early or forge another. */
function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
