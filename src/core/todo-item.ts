// One item of the model's plan (chapter s05). It lives below the loop because the `todos`
// event carries the list; the planning part (src/planning/) keeps and checks it.

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  content: string;
  status: TodoStatus;
  /** The item said as work under way ("Running the tests"), shown while it is in progress. */
  activeForm?: string;
}
