// How much the shell-parsed permission check costs: loading the wasm parser once, then
// classifying commands of typical length. Run with `npx tsx bench/permissions.ts`.

import { classifyCommand } from "../src/permissions/classify.js";
import { noRules } from "../src/permissions/rules.js";
import { initShellParser } from "../src/shell/parse.js";
import { type Benchmark, type Figure, percentile, runIfMain } from "./report.js";

const commands = [
  "ls -la",
  "git status && git diff --stat | head -20",
  "npm test -- --run 2>&1 | tail -40",
  "find . -name '*.ts' -not -path './node_modules/*' -exec grep -l 'agentLoop' {} +",
  "cd src && rm -rf ../dist && sh -c 'npm run build > build.log 2>&1'",
  `cat > notes.md <<'EOF'\n${"a line of a long here-document\n".repeat(200)}EOF`,
];

export async function permissionFigures(): Promise<Figure[]> {
  const started = performance.now();
  await initShellParser();
  const initMs = performance.now() - started;

  const context = { workspace: "/work/project", home: "/home/dev", rules: noRules() };
  for (let i = 0; i < 200; i += 1)
    for (const command of commands) classifyCommand(command, context);
  const timings: number[] = [];
  for (let i = 0; i < 2000; i += 1) {
    const command = commands[i % commands.length] as string;
    const t0 = performance.now();
    classifyCommand(command, context);
    timings.push(performance.now() - t0);
  }
  return [
    { name: "shell parser init (once per process)", value: initMs, unit: "ms", target: 200 },
    { name: "classify a command, median", value: percentile(timings, 0.5), unit: "ms", target: 1 },
    // The tail follows the machine's load (other processes, GC), so it is shown, not judged.
    { name: "classify a command, p99", value: percentile(timings, 0.99), unit: "ms", target: null },
  ];
}

export const permissionsBenchmark: Benchmark = {
  title: "Permission check (tree-sitter-bash)",
  figures: permissionFigures,
};

await runIfMain(permissionsBenchmark, import.meta.url);
