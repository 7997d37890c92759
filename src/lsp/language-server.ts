// One language server process for one workspace: started, initialised, told each file's text
// as a numbered version, and asked for that version's diagnostics. Servers give them in one of
// two ways, and both are met here: a server that announces `diagnosticProvider` (LSP 3.17;
// TypeScript 7's `tsc --lsp`) answers `textDocument/diagnostic` when asked and publishes
// nothing; the others (pyright) publish `textDocument/publishDiagnostics` on their own time,
// naming the version they checked when they can.

import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { ServerConfig } from "./config.js";
import { type Connection, connect } from "./json-rpc.js";

export interface Diagnostic {
  /** 1-based, as a person counts. */
  line: number;
  column: number;
  /** 1 error, 2 warning, 3 information, 4 hint (LSP's DiagnosticSeverity; absent means error). */
  severity: number;
  message: string;
  code?: string | number;
}

/** How long a pull request may take before it is given up, after the edit stopped waiting. */
const PULL_GIVE_UP_MS = 60_000;

interface OpenDocument {
  version: number;
  text: string;
  /** The diagnostics of `version`, once known. */
  known: Diagnostic[] | null;
}

export interface LanguageServer {
  readonly config: ServerConfig;
  readonly root: string;
  /** Resolves once the server answered `initialize`; rejects when it failed or stopped. */
  readonly ready: Promise<void>;
  /** Null while it runs; then why it stopped. */
  stopped(): string | null;
  /**
   * Tells the server `text` is the file's content (opening it the first time) and resolves with
   * the diagnostics of that version, whenever they come; rejects when the server stops first.
   * `version` is the number the text was sent as.
   */
  check(
    path: string,
    language: string,
    text: string,
  ): { version: number; diagnostics: Promise<Diagnostic[]> };
  /** The file's latest version sent, its text and diagnostics (null until known). */
  document(path: string): Readonly<OpenDocument> | undefined;
  /** Asks the server to shut down, then ends it. */
  stop(): Promise<void>;
}

export function startLanguageServer(
  config: ServerConfig,
  root: string,
  onStop: (why: string) => void,
): LanguageServer {
  // In a process group of its own, ended whole when the server stops: a server started through
  // a launcher (TypeScript 7's `tsc` on Node 20 runs its native binary as a child) would
  // otherwise leave that child running, still writing its caches, once the launcher is killed.
  const child = spawn(config.command, config.args, {
    cwd: root,
    env: { ...process.env, ...config.env },
    stdio: ["pipe", "pipe", "ignore"],
    detached: true,
  });
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group has ended already.
    }
  };
  let stoppedWhy: string | null = null;
  let stopping = false;
  const documents = new Map<string, OpenDocument>();
  /** Waiting for a published version (or, from a server that names none, the next publish). */
  const waiters = new Map<
    string,
    { version: number; resolve(items: Diagnostic[]): void; reject(error: Error): void }[]
  >();

  const connection: Connection = connect(child.stdout, child.stdin, (method, params) =>
    // workspace/configuration wants one answer per item asked; null means "your defaults".
    method === "workspace/configuration"
      ? ((params as { items?: unknown[] }).items ?? []).map(() => null)
      : null,
  );
  const end = (why: string) => {
    if (stoppedWhy !== null) return;
    stoppedWhy = why;
    connection.close(why);
    for (const list of waiters.values()) for (const waiter of list) waiter.reject(new Error(why));
    waiters.clear();
    if (!stopping) onStop(why);
  };
  child.on("error", (error) => end(`it could not start (${error.message})`));
  child.on("exit", (code, signal) =>
    end(signal ? `it was ended by ${signal}` : `it exited with code ${code}`),
  );
  child.stdin?.on("error", () => {});

  let pull = false;
  let initialized = false;
  const ready = (async () => {
    const result = (await connection.request(
      "initialize",
      {
        processId: process.pid,
        rootUri: pathToFileURL(root).href,
        workspaceFolders: [{ uri: pathToFileURL(root).href, name: root }],
        capabilities: {
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { versionSupport: true, relatedInformation: false },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
          },
          workspace: { configuration: true, workspaceFolders: true },
        },
        initializationOptions: config.initializationOptions,
      },
      config.startupTimeoutMs,
    )) as { capabilities?: { diagnosticProvider?: unknown } } | null;
    pull = Boolean(result?.capabilities?.diagnosticProvider);
    initialized = true;
    connection.notify("initialized", {});
  })();
  ready.catch((error: Error) => {
    // A server that does not answer in time is of no use: it is ended, and said so once.
    if (stoppedWhy === null) {
      end(`it did not start: ${error.message}`);
      killGroup();
    }
  });

  connection.onNotification("textDocument/publishDiagnostics", (params) => {
    const { uri, version, diagnostics } = params as {
      uri: string;
      version?: number;
      diagnostics: unknown[];
    };
    const document = documents.get(uri);
    if (!document) return;
    const items = diagnostics.map(toDiagnostic);
    if (version === undefined || version === document.version) document.known = items;
    const list = waiters.get(uri) ?? [];
    const left = list.filter((waiter) => {
      const answers = version === undefined || version === waiter.version;
      if (answers) waiter.resolve(items);
      return !answers;
    });
    waiters.set(uri, left);
  });

  const pulled = async (uri: string): Promise<Diagnostic[]> => {
    const report = (await connection.request(
      "textDocument/diagnostic",
      { textDocument: { uri } },
      PULL_GIVE_UP_MS,
    )) as { items?: unknown[] } | null;
    return (report?.items ?? []).map(toDiagnostic);
  };

  return {
    config,
    root,
    ready,
    stopped: () => stoppedWhy,
    check(path, language, text) {
      const uri = pathToFileURL(path).href;
      const open = documents.get(uri);
      const version = (open?.version ?? 0) + 1;
      const document: OpenDocument = { version, text, known: null };
      documents.set(uri, document);
      const diagnostics = ready.then(async () => {
        if (open) {
          connection.notify("textDocument/didChange", {
            textDocument: { uri, version },
            contentChanges: [{ text }],
          });
        } else {
          connection.notify("textDocument/didOpen", {
            textDocument: { uri, languageId: language, version, text },
          });
        }
        if (pull) {
          const items = await pulled(uri);
          if (documents.get(uri) === document) document.known = items;
          return items;
        }
        return new Promise<Diagnostic[]>((resolve, reject) => {
          const list = waiters.get(uri) ?? [];
          list.push({ version, resolve, reject });
          waiters.set(uri, list);
        });
      });
      diagnostics.catch(() => {});
      return { version, diagnostics };
    },
    document: (path) => documents.get(pathToFileURL(path).href),
    async stop() {
      stopping = true;
      // A server that never answered `initialize` would not answer `shutdown` either.
      if (stoppedWhy === null && initialized) {
        await connection.request("shutdown", null, 1_000).catch(() => {});
        connection.notify("exit", null);
      } else {
        child.kill("SIGTERM");
      }
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const timer = setTimeout(killGroup, 1_000);
      if (child.exitCode === null && child.signalCode === null) await exited;
      clearTimeout(timer);
      killGroup();
      end("the session ended");
    },
  };
}

function toDiagnostic(raw: unknown): Diagnostic {
  const item = raw as {
    range?: { start?: { line?: number; character?: number } };
    severity?: number;
    message?: string;
    code?: string | number;
  };
  return {
    line: (item.range?.start?.line ?? 0) + 1,
    column: (item.range?.start?.character ?? 0) + 1,
    severity: item.severity ?? 1,
    message: String(item.message ?? ""),
    ...(item.code === undefined ? {} : { code: item.code }),
  };
}
