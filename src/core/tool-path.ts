// Where a path the model wrote points: absolute as given, `~/...` in the home directory, and
// anything else from the workspace root (the file tools do not follow bash's `cd`).

import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export function resolveToolPath(workspace: string, path: string, home = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}
