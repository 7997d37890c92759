// The permission modes' names, below every part: a part is told the mode its tools run under.
// What each mode allows is decided in src/permissions/policy.ts.

// "plan" is Claude Code's name for the mode (code.claude.com/docs/en/permission-modes).
export const PERMISSION_MODES = ["ask", "auto", "read-only", "yolo", "plan"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
