// What a person sees of tool calls at the terminal: the call in one line, and an edit's result
// as a compact diff, coloured only when the output is a terminal, and left out when the
// permission question before the call showed it.

import { describe, expect, it } from "vitest";
import type { ToolResultBlock, ToolUseBlock } from "../src/core/messages.js";
import { createRenderer, describeCall } from "../src/terminal/render.js";

const edit: ToolUseBlock = {
  type: "tool_use",
  id: "toolu_1",
  name: "edit",
  input: { file_path: "src/app.ts", old_string: "a", new_string: "b" },
};

const result: ToolResultBlock = {
  type: "tool_result",
  tool_use_id: "toolu_1",
  content: [
    "Edited src/app.ts: 1 replacement, +1 -1 lines.",
    "--- src/app.ts",
    "+++ src/app.ts",
    "@@ -1,2 +1,2 @@",
    " const x = 1;",
    "-const a = 2;",
    "+const b = 2;",
  ].join("\n"),
};

function rendered(color: boolean, call = edit, changeShown = () => false): string {
  let out = "";
  const output = { write: (text: string) => (out += text) };
  const render = createRenderer({
    answer: output,
    progress: output,
    color,
    streamText: true,
    changeShown,
  });
  render({ type: "tool_start", call });
  render({ type: "tool_end", call, result, durationMs: 3 });
  return out;
}

describe("rendering tool calls", () => {
  it("names the file a file tool works on", () => {
    expect(describeCall(edit)).toBe("edit src/app.ts");
  });

  it("marks a command started in the background", () => {
    const input = { command: "npm run dev", run_in_background: true };
    expect(describeCall({ type: "tool_use", id: "b1", name: "bash", input })).toBe(
      "bash (background) $ npm run dev",
    );
  });

  it("shows an edit as its diff, additions green and removals red on a terminal", () => {
    const out = rendered(true);
    expect(out).toContain("\x1b[32m+const b = 2;\x1b[0m");
    expect(out).toContain("\x1b[31m-const a = 2;\x1b[0m");
    expect(out).toContain("\x1b[36m@@ -1,2 +1,2 @@\x1b[0m");
    expect(out).not.toContain("+++ src/app.ts");
  });

  it("shows the same diff without escape sequences when piped", () => {
    expect(rendered(false)).toBe(
      [
        "⏺ edit src/app.ts",
        "  ⎿ Edited src/app.ts: 1 replacement, +1 -1 lines.",
        "    @@ -1,2 +1,2 @@",
        "     const x = 1;",
        "    -const a = 2;",
        "    +const b = 2;",
        "",
      ].join("\n"),
    );
  });

  it("leaves the diff out of an edit's result when its question has just shown it", () => {
    expect(rendered(false, edit, () => true)).toBe(
      "⏺ edit src/app.ts\n  ⎿ Edited src/app.ts: 1 replacement, +1 -1 lines.\n",
    );
  });

  it("keeps a diff that a command printed, which no question showed", () => {
    const gitDiff: ToolUseBlock = { ...edit, name: "bash", input: { command: "git diff" } };
    expect(rendered(false, gitDiff, () => true)).toContain("    -const a = 2;");
  });
});
