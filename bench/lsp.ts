// How long an edit waits for a language server's diagnostics (src/lsp/): 20 edits of one file,
// each alternately adding and fixing a type error, through the part's hooks around a real
// write, with the two servers this package tests against: TypeScript 7's `tsc --lsp` (asked,
// LSP 3.17's textDocument/diagnostic) and pyright (which publishes). The first edit, which
// starts the server, is shown on its own, for comparison.
//
// Targets: the median later edit waits at most 500 ms (a pause a person barely notices beside a
// model's turn), and the worst at most 3000 ms, the default bound past which an edit is told
// nothing.
//
//   npx tsx bench/lsp.ts

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ToolResultBlock } from "../src/core/messages.js";
import { startLspPart } from "../src/lsp/part.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const EDITS = 20;
const modules = resolve(import.meta.dirname, "../node_modules");

interface Server {
  name: string;
  args: string[];
  extension: string;
  language: string;
  good: string;
  bad: string;
}

const SERVERS: Server[] = [
  {
    name: "tsc 7 (pull)",
    args: [join(modules, "typescript-7/bin/tsc"), "--lsp", "--stdio"],
    extension: ".ts",
    language: "typescript",
    good: "export const n: number = 1;\n",
    bad: 'export const n: number = "one";\n',
  },
  {
    name: "pyright (publishes)",
    args: [join(modules, "pyright/langserver.index.js"), "--stdio"],
    extension: ".py",
    language: "python",
    good: "def n() -> int:\n    return 1\n",
    bad: 'def n() -> int:\n    return "one"\n',
  },
];

async function editWaits(server: Server): Promise<{ first: number; later: number[] }> {
  const root = mkdtempSync(join(tmpdir(), "agentloop-bench-lsp-"));
  try {
    const workspace = join(root, "work");
    const config = join(root, "config", "agentloop");
    mkdirSync(workspace, { recursive: true });
    mkdirSync(config, { recursive: true });
    const lspServers = {
      bench: {
        command: process.execPath,
        args: server.args,
        extensionToLanguage: { [server.extension]: server.language },
        diagnosticsTimeout: 30_000,
      },
    };
    writeFileSync(join(config, "settings.json"), JSON.stringify({ lspServers }));
    const env = { ...process.env, XDG_CONFIG_HOME: join(root, "config"), HOME: root };
    const part = await startLspPart({ cwd: workspace, env });
    const hooks = part?.toolHooks;
    if (!part || !hooks) throw new Error("the language server part did not start");
    const file = join(workspace, `bench${server.extension}`);
    const signal = new AbortController().signal;
    const waits: number[] = [];
    for (let edit = 0; edit <= EDITS; edit += 1) {
      const content = edit % 2 === 1 ? server.bad : server.good;
      const call = {
        type: "tool_use" as const,
        id: `e${edit}`,
        name: "write",
        input: { file_path: file, content },
      };
      await hooks.beforeCall(call, signal);
      writeFileSync(file, content);
      const result: ToolResultBlock = {
        type: "tool_result",
        tool_use_id: call.id,
        content: "Written.",
      };
      const started = performance.now();
      const after = await hooks.afterCall(call, result, signal);
      waits.push(performance.now() - started);
      const told = JSON.stringify(after.content).includes("reports new errors");
      if (told !== (edit % 2 === 1)) throw new Error(`edit ${edit} was told the wrong diagnostics`);
    }
    await part.close?.();
    return { first: waits[0] ?? 0, later: waits.slice(1) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export const lspBenchmark: Benchmark = {
  title: `language servers: what an edit waits for its diagnostics (${EDITS} edits each)`,
  async figures() {
    const figures: Figure[] = [];
    for (const server of SERVERS) {
      const { first, later } = await editWaits(server);
      figures.push(
        {
          name: `${server.name}: first edit, the server starting`,
          value: first,
          unit: "ms",
          target: null,
        },
        {
          name: `${server.name}: median later edit`,
          value: median(later),
          unit: "ms",
          target: 500,
        },
        {
          name: `${server.name}: worst later edit`,
          value: Math.max(...later),
          unit: "ms",
          target: 3000,
        },
      );
    }
    return figures;
  },
};

await runIfMain(lspBenchmark, import.meta.url);
