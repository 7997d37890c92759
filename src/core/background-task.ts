// A command the model started with `run_in_background` (chapter s11), as the events, the JSON
// result and the REPL's /tasks show it. It lives below the loop because loop events carry it;
// the background part (src/background/) runs the tasks and keeps their registry.

/** How a task ended (Claude Code's names), or that it has not yet. */
export type BackgroundTaskStatus = "running" | "completed" | "failed" | "killed" | "timed_out";

export interface BackgroundTask {
  /** `bg_1`, `bg_2`, ... in the order the session started them. */
  task_id: string;
  command: string;
  status: BackgroundTaskStatus;
  /** The shell's exit code; null while it runs, or when it was killed or timed out. */
  exit_code: number | null;
  /** Where its output goes (capped; see docs/background-tasks.md). */
  output_file: string;
}
