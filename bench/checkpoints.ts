// What a checkpoint costs in a large repository (src/checkpoints/): the first snapshot of a
// 20,000-file work tree into the shadow repository, the snapshot before each later prompt, and
// how much the store grows over 100 prompts that each change one file.
//
//   npx tsx bench/checkpoints.ts

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointData, createRecorder } from "../src/checkpoints/recorder.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const FILES = 20_000;
const PROMPTS = 100;

/** A committed repository of FILES source-sized files, 100 to a directory. */
function largeRepository(root: string): void {
  for (let index = 0; index < FILES; index += 1) {
    const directory = join(root, `dir-${Math.floor(index / 100)}`);
    if (index % 100 === 0) mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, `file-${index}.ts`),
      `export const value${index} = ${index};\n`.repeat(40),
    );
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: "ignore",
    });
  git("init", "--quiet");
  git("add", "--all");
  git(
    "-c",
    "user.name=bench",
    "-c",
    "user.email=bench@localhost",
    "commit",
    "--quiet",
    "-m",
    "bench",
  );
}

function bytesUnder(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

export async function checkpointFigures(): Promise<Figure[]> {
  const base = mkdtempSync(join(tmpdir(), "agentloop-bench-checkpoints-"));
  try {
    const repository = join(base, "repository");
    mkdirSync(repository);
    largeRepository(repository);
    const session = join(base, "session");
    const data = checkpointData(session, repository, process.env);
    const recorder = createRecorder(data, repository);

    let started = performance.now();
    recorder.checkpoint(1, "first");
    const first = performance.now() - started;

    const changed = join(repository, "dir-7", "file-700.ts");
    const incremental: number[] = [];
    const storeBefore = bytesUnder(join(session, "checkpoints"));
    for (let prompt = 2; prompt <= PROMPTS + 1; prompt += 1) {
      writeFileSync(changed, `export const changed = ${prompt};\n`.repeat(40));
      started = performance.now();
      recorder.checkpoint(prompt, `prompt ${prompt}`);
      incremental.push(performance.now() - started);
    }
    const growth = bytesUnder(join(session, "checkpoints")) - storeBefore;
    return [
      {
        name: `first checkpoint, ${FILES.toLocaleString("en")} files`,
        value: first,
        unit: "ms",
        target: 4000,
      },
      {
        name: "checkpoint before a later prompt (one file changed), median",
        value: median(incremental),
        unit: "ms",
        target: 150,
      },
      {
        name: `store growth over ${PROMPTS} prompts changing one file each`,
        value: growth / 1024,
        unit: "KiB",
        target: 1024,
      },
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export const checkpointsBenchmark: Benchmark = {
  title: `Checkpoints, a ${FILES.toLocaleString("en")}-file git repository`,
  figures: checkpointFigures,
};

await runIfMain(checkpointsBenchmark, import.meta.url);
