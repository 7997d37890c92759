// What a checkpoint costs in a large repository (src/checkpoints/): the first snapshot of a
// session in a committed work tree of 20,000 and of 100,000 files (the first ever there, which
// makes the work tree's store, and a later session's, which finds it), the snapshot before each
// later prompt, and how much the store grows over 100 prompts that each change one file. Each is
// taken as a session takes it, in the background (child git processes).
//
//   npx tsx bench/checkpoints.ts            both sizes
//   npx tsx bench/checkpoints.ts 20000      one

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointData, createRecorder, type Recorder } from "../src/checkpoints/recorder.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const PROMPTS = 100;
/** Files, and the first checkpoint's target at that size (ms). */
const SIZES: ReadonlyArray<readonly [number, number]> = [
  [20_000, 300],
  [100_000, 1000],
];

/**
 * A committed repository of `files` source-sized files, 100 to a directory, its objects in one
 * pack as a clone leaves them. (Left loose, the commit's own `git gc --auto` would pack them in
 * the background while the first checkpoint is being measured.)
 */
export function largeRepository(root: string, files: number): void {
  for (let index = 0; index < files; index += 1) {
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
    "-c",
    "gc.auto=0",
    "commit",
    "--quiet",
    "-m",
    "bench",
  );
  git("repack", "-a", "-d", "-q");
}

function bytesUnder(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** Milliseconds checkpoint `number` takes until its snapshot is taken. */
async function timedCheckpoint(recorder: Recorder, number: number): Promise<number> {
  const started = performance.now();
  const { tree } = recorder.checkpointInBackground(number, `prompt ${number}`);
  if ((await tree) === null) throw new Error("the snapshot was not taken");
  return performance.now() - started;
}

/** The floor of any snapshot that must notice what bash changed: git comparing every file's stat. */
function statPass(repository: string): number {
  const started = performance.now();
  execFileSync("git", ["ls-files", "-m"], { cwd: repository, stdio: "ignore" });
  return performance.now() - started;
}

const load = () => `load ${loadavg()[0]?.toFixed(1)}`;

async function figuresAt(files: number, target: number): Promise<Figure[]> {
  const base = mkdtempSync(join(tmpdir(), "agentloop-bench-checkpoints-"));
  try {
    const repository = join(base, "repository");
    mkdirSync(repository);
    largeRepository(repository, files);
    const env = { ...process.env, XDG_STATE_HOME: join(base, "state") };
    const session = (name: string) =>
      createRecorder(checkpointData(join(base, name), repository, env), repository);
    const count = files.toLocaleString("en");

    const first = session("first");
    const firstEver = await timedCheckpoint(first, 1);
    const firstLoad = load();
    const secondSession = await timedCheckpoint(session("second"), 1);
    const figures: Figure[] = [
      {
        name: `first checkpoint, ${count} files, new store (${firstLoad})`,
        value: firstEver,
        unit: "ms",
        target,
      },
      {
        name: `first checkpoint of a later session, ${count} files (${load()})`,
        value: secondSession,
        unit: "ms",
        target,
      },
    ];
    if (files > 20_000) return figures;

    const changed = join(repository, "dir-7", "file-700.ts");
    const incremental: number[] = [];
    const stores = [join(base, "state"), join(base, "first")];
    const storeBefore = stores.reduce((sum, path) => sum + bytesUnder(path), 0);
    for (let prompt = 2; prompt <= PROMPTS + 1; prompt += 1) {
      writeFileSync(changed, `export const changed = ${prompt};\n`.repeat(40));
      incremental.push(await timedCheckpoint(first, prompt));
    }
    const growth = stores.reduce((sum, path) => sum + bytesUnder(path), 0) - storeBefore;
    const unchanged: number[] = [];
    for (let prompt = PROMPTS + 2; prompt <= PROMPTS + 6; prompt += 1)
      unchanged.push(await timedCheckpoint(first, prompt));
    return [
      ...figures,
      {
        name: `git's own pass over the files' stat data (git ls-files -m), median (${load()})`,
        value: median(Array.from({ length: 5 }, () => statPass(repository))),
        unit: "ms",
        target: null,
      },
      {
        name: `checkpoint before a later prompt (one file changed), median (${load()})`,
        value: median(incremental),
        unit: "ms",
        target: 50,
      },
      {
        name: `checkpoint before a later prompt (nothing changed), median (${load()})`,
        value: median(unchanged),
        unit: "ms",
        target: null,
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

export async function checkpointFigures(): Promise<Figure[]> {
  const only = Number(process.argv[2]);
  const figures: Figure[] = [];
  for (const [files, target] of SIZES) {
    if (only > 0 && files !== only) continue;
    figures.push(...(await figuresAt(files, target)));
  }
  return figures;
}

export const checkpointsBenchmark: Benchmark = {
  title: "Checkpoints in large git repositories (the snapshot taken in the background)",
  figures: checkpointFigures,
};

await runIfMain(checkpointsBenchmark, import.meta.url);
