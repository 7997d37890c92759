// Runs the fake Anthropic server on its own, for end-to-end tests and benchmarks that spawn
// the CLI against it:
//
//   npx tsx test/support/fake-anthropic-main.ts script.json     (or FAKE_ANTHROPIC_SCRIPT=<json>)
//
// The script is a JSON array of turns, or {"turns": [...], "cycle": true} to start over when it
// runs out. The first line on stdout is the base URL; set ANTHROPIC_BASE_URL to it. While it
// runs, GET <url>/_fake/requests returns the recorded requests. SIGTERM or SIGINT stops it.

import { readFileSync } from "node:fs";
import { type FakeTurn, startFakeAnthropic } from "./fake-anthropic-server.js";

type ScriptFile = FakeTurn[] | { turns: FakeTurn[]; cycle?: boolean };

const path = process.argv[2];
const source = path ? readFileSync(path, "utf8") : process.env.FAKE_ANTHROPIC_SCRIPT;
if (!source) {
  console.error("Give a script: a JSON file path as argument, or FAKE_ANTHROPIC_SCRIPT=<json>.");
  process.exit(2);
}
const parsed = JSON.parse(source) as ScriptFile;
const script = Array.isArray(parsed) ? { turns: parsed } : parsed;

const fake = await startFakeAnthropic();
fake.script(script.turns, { cycle: script.cycle ?? false });
console.log(fake.url);

const stop = async () => {
  await fake.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
