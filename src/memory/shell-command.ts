// `agentloop memory [list | forget ID | pin ID | approve ID|all | reject ID|all | clear]
// [--cwd DIR]`: the project's memory from the shell, whether or not memory is turned on.

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { MEMORY_COMMAND_HELP, runMemoryCommand, storesFor } from "./memory-command.js";

export async function runMemoryShellCommand(options: {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
}): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(options.argv);
  } catch (error) {
    throw new ConfigError(
      `${(error as Error).message}. Usage: agentloop memory ${MEMORY_COMMAND_HELP} [--cwd DIR]`,
    );
  }
  const cwd = resolve(parsed.values.cwd ?? ".");
  const stores = storesFor(cwd, options.env, "shell");
  options.stdout(await runMemoryCommand(parsed.positionals, stores));
  return EXIT.done;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { cwd: { type: "string" } },
  });
}
