// Opens a URL in the user's browser with the platform's own opener. Failing to open is not an
// error: the URL is printed anyway, so the notice just says to open it by hand.

import { spawn } from "node:child_process";

export function browserOpener(url: string, platform = process.platform): [string, string[]] {
  switch (platform) {
    case "darwin":
      return ["open", [url]];
    case "win32":
      return ["cmd", ["/c", "start", "", url]];
    default:
      return ["xdg-open", [url]];
  }
}

/** Calls `notice` with one sentence if the browser could not be opened. */
export function openInBrowser(
  url: string,
  notice: (sentence: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const [command, args] = browserOpener(url);
  const child = spawn(command, args, { stdio: "ignore", detached: true, env });
  child.on("error", () => {
    notice(`Could not open a browser (${command} is not available); open ${url} yourself.`);
  });
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) {
      notice(
        `Could not open a browser (${command} exited with code ${code}); open ${url} yourself.`,
      );
    }
  });
  child.unref();
}
