// A launcher that runs the fake language server as its child and waits, as TypeScript 7's `tsc`
// does on Node 20 (it has no process.execve there): ending the launcher alone leaves the server.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

const server = resolve(import.meta.dirname, "fake-language-server.mjs");
execFileSync(process.execPath, [server, ...process.argv.slice(2)], { stdio: "inherit" });
