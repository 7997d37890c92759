import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most tests wait on the processes they start (the CLI, bash, git, bubblewrap, Chromium), so
    // they run two at a time even on two cores, where vitest's default (cores - 1) runs one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { extends: true, test: { name: "all", include: ["test/**/*.test.ts"] } },
      // The bash tool's suite, and what MCP and batch runs do with processes, once more with
      // the process table macOS uses, `ps`, in place of /proc: none of it may depend on the table.
      {
        extends: true,
        test: {
          name: "ps-table",
          include: [
            "test/bash-*.test.ts",
            "test/mcp-connections.test.ts",
            "test/batch-run-task.test.ts",
          ],
          env: { AGENTLOOP_PROCESS_TABLE: "ps" },
        },
      },
    ],
  },
});
