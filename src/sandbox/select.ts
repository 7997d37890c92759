// The platform's sandbox: bubblewrap on Linux, Seatbelt on macOS, and on any other system a
// refusal. `auto` and `read-only` never fall back to running a command unsandboxed.

import { checkBubblewrap, createBubblewrapSandbox } from "./bubblewrap.js";
import { OTHER_MODES, type Sandbox, type SandboxCheck, type SandboxOptions } from "./sandbox.js";
import { checkSeatbelt, createSeatbeltSandbox } from "./seatbelt.js";

/** The sandbox of `platform`; only after `checkSandbox` said it starts there. */
export function createSandbox(
  options: SandboxOptions,
  platform: NodeJS.Platform = process.platform,
): Sandbox {
  if (platform === "linux") return createBubblewrapSandbox(options);
  if (platform === "darwin") return createSeatbeltSandbox(options);
  throw new Error(`There is no sandbox for ${platform}; checkSandbox says so first.`);
}

/** Starts the platform's sandbox once to prove it works here; says why and what to do if not. */
export function checkSandbox(
  options: SandboxOptions,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxCheck> {
  if (platform === "linux") return checkBubblewrap(options);
  if (platform === "darwin") return checkSeatbelt(options);
  const reason = `The sandbox needs Linux with bubblewrap or macOS with sandbox-exec, and this is ${platform}. ${capitalized(OTHER_MODES)}.`;
  return Promise.resolve({ ok: false, reason });
}

function capitalized(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
