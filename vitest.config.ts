import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "all", include: ["test/**/*.test.ts"] } },
      // The bash tool's suite once more with the process table macOS uses, `ps`, in place of
      // /proc: what the tool does with a command's processes must not depend on the table.
      {
        extends: true,
        test: {
          name: "ps-table",
          include: ["test/bash-*.test.ts"],
          env: { AGENTLOOP_PROCESS_TABLE: "ps" },
        },
      },
    ],
  },
});
