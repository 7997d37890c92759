import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { createPermissionCheck, initShellParser, noRules } from "../src/permissions/policy.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { bash, scriptedProvider, text } from "./support/scripted-provider.js";

describe("permissions in the agent loop", () => {
  beforeAll(() => initShellParser());

  it("in ask mode without a terminal, denies a destructive command and tells the model", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "agentloop-e2e-"));
    mkdirSync(join(workspace, "src"));
    const provider = scriptedProvider([
      { content: [text("Cleaning up."), bash("toolu_1", "echo ok && rm -rf src")] },
      { content: [text("I was not allowed to delete src.")] },
    ]);
    const check = createPermissionCheck({ mode: "ask", workspace, rules: noRules() });
    const toolbox = createToolbox([createBashTool({ cwd: workspace })], check);
    const state = createLoopState([{ role: "user", content: "remove src" }]);
    const loop = agentLoop(state, { provider, toolbox, system: "test", maxTurns: 5 });
    for await (const _event of loop) {
      // The events are not what this test is about.
    }

    expect(existsSync(join(workspace, "src"))).toBe(true);
    const sentBack = provider.requests[1]?.at(-1)?.content as ToolResultBlock[];
    expect(sentBack).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        is_error: true,
        content: expect.stringContaining(
          'Permission needed: "rm -rf src" is not known to be read-only, and there is no terminal to ask for approval.',
        ),
      },
    ]);
  });
});
