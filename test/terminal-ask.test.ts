import { describe, expect, it } from "vitest";
import { parseAnswer, permissionQuestion } from "../src/terminal/ask.js";

describe("answers to a permission question", () => {
  it.each([
    ["y", "yes"],
    ["Yes", "yes"],
    ["a", "always"],
    ["always", "always"],
    ["n", "no"],
    ["", "no"],
    ["n use the test script instead", { no: "use the test script instead" }],
    ["please don't touch prod", { no: "please don't touch prod" }],
  ])("%j means %j", (line, expected) => {
    expect(parseAnswer(line, true)).toEqual(expected);
  });

  it("treats 'always' as a plain yes when no rule can be remembered", () => {
    expect(parseAnswer("a", false)).toBe("yes");
  });
});

describe("the words of a permission question", () => {
  it("asks to run a one-line command, with why it is asked under it", () => {
    const question = permissionQuestion({
      tool: "bash",
      action: { kind: "command", command: "npm install" },
      reason: '"npm install" is not known to be read-only',
      rules: ["npm install"],
    });
    expect(question).toEqual({
      headline: "Allow bash to run npm install?",
      detail: ['("npm install" is not known to be read-only)'],
      choices: '[y]es, [n]o, [a]lways allow npm install; after "n" you may say why:',
    });
  });

  it("shows a command of several lines under the question, each on a line of its own", () => {
    const question = permissionQuestion({
      tool: "bash",
      action: { kind: "command", command: "mkdir out\ncd out\ntouch a.txt\n" },
      reason: '"mkdir out" is not known to be read-only',
      rules: [],
    });
    expect(question.headline).toBe("Allow bash to run these 3 lines?");
    // The command is code, left as it is; the reason is words, wrapped to the terminal.
    expect(question.code).toEqual(["mkdir out", "cd out", "touch a.txt"]);
    expect(question.detail).toEqual(['("mkdir out" is not known to be read-only)']);
  });

  it("offers yes and no only when no rule can be remembered", () => {
    const question = permissionQuestion({
      tool: "edit",
      action: { kind: "files", paths: ["/etc/hosts"] },
      reason: 'edit would change "/etc/hosts", outside the workspace',
      rules: [],
    });
    expect(question.choices).toBe('[y]es, [n]o; after "n" you may say why:');
    expect(question.detail).toEqual(['(edit would change "/etc/hosts", outside the workspace)']);
  });

  it("shows a diff from its first hunk: the file names above it are the question's", () => {
    const question = permissionQuestion({
      tool: "edit",
      action: { kind: "files", paths: ["a.txt"] },
      preview: "--- /w/a.txt\n+++ /w/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
      rules: ["tool:edit"],
    });
    expect(question.headline).toBe("Allow edit of a.txt?");
    expect(question.code).toEqual(["@@ -1 +1 @@", "-old", "+new"]);
  });

  it("shows each argument of another tool's call on a line, a long one cut", () => {
    const question = permissionQuestion({
      tool: "mcp__notes__save",
      action: { kind: "input", input: { title: "plan", body: "x".repeat(300) } },
      rules: ["tool:mcp__notes__save"],
    });
    expect(question.headline).toBe("Allow a call to mcp__notes__save?");
    expect(question.code?.[0]).toBe('title: "plan"');
    expect(question.code?.[1]).toMatch(/^body: "x+…$/);
    expect(question.code?.[1]).toHaveLength(200);
  });
});
