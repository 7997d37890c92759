// The pieces of src/lsp/ below the part: LSP's Content-Length framing over real streams, split
// and joined however the pipe delivers it, and which diagnostics count as new after an edit.

import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { connect } from "../src/lsp/json-rpc.js";
import type { Diagnostic } from "../src/lsp/language-server.js";
import { newProblems, problemsText } from "../src/lsp/new-problems.js";

const frame = (message: Record<string, unknown>) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
};

/** Everything written to `stream` so far, as the messages it frames. */
function framed(stream: PassThrough): Record<string, unknown>[] {
  const text = (stream.read() as Buffer | null)?.toString() ?? "";
  return text
    .split(/Content-Length: \d+\r\n\r\n/)
    .filter(Boolean)
    .map((body) => JSON.parse(body) as Record<string, unknown>);
}

describe("JSON-RPC over LSP's framing", () => {
  it("reads messages split across chunks and several in one chunk, and answers the server's requests", async () => {
    const fromServer = new PassThrough();
    const toServer = new PassThrough();
    const connection = connect(fromServer, toServer, (method, params) =>
      method === "workspace/configuration"
        ? (params as { items: unknown[] }).items.map(() => null)
        : null,
    );
    const published: unknown[] = [];
    connection.onNotification("textDocument/publishDiagnostics", (params) =>
      published.push(params),
    );
    const answer = connection.request("initialize", {}, 5_000);
    const [sent] = framed(toServer);
    expect(sent).toMatchObject({ id: 1, method: "initialize" });

    const reply = frame({ id: 1, result: { capabilities: {} } });
    const note = frame({ method: "textDocument/publishDiagnostics", params: { uri: "file:///a" } });
    const ask = frame({ id: 7, method: "workspace/configuration", params: { items: [{}, {}] } });
    const all = Buffer.concat([reply, note, ask]);
    fromServer.write(all.subarray(0, 5));
    fromServer.write(all.subarray(5, reply.length + 3));
    fromServer.write(all.subarray(reply.length + 3));
    await expect(answer).resolves.toEqual({ capabilities: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toEqual([{ uri: "file:///a" }]);
    expect(framed(toServer)).toEqual([{ jsonrpc: "2.0", id: 7, result: [null, null] }]);
  });

  it("gives up a request that is not answered in time, and every request once closed", async () => {
    const connection = connect(new PassThrough(), new PassThrough(), () => null);
    await expect(connection.request("textDocument/diagnostic", {}, 50)).rejects.toThrow(
      "no answer to textDocument/diagnostic within 50 ms",
    );
    const waiting = connection.request("shutdown", null, 5_000);
    connection.close("it exited with code 1");
    await expect(waiting).rejects.toThrow("it exited with code 1");
    await expect(connection.request("shutdown", null, 5_000)).rejects.toThrow("exited");
  });
});

const problem = (message: string, line = 1, severity = 1): Diagnostic => ({
  line,
  column: 1,
  severity,
  message,
});

describe("new problems after an edit", () => {
  it("counts a problem as old wherever it moved, and each repeat of it apart", () => {
    const before = [problem("x is unused", 3, 2), problem("bad type", 4), problem("bad type", 9)];
    const after = [problem("bad type", 5), problem("bad type", 10), problem("bad type", 12)];
    expect(newProblems(before, after, 1)).toEqual([problem("bad type", 12)]);
  });

  it("leaves out problems milder than asked", () => {
    const after = [problem("unused", 1, 2), problem("hint", 2, 4), problem("wrong", 3, 1)];
    expect(newProblems([], after, 1).map((item) => item.message)).toEqual(["wrong"]);
    expect(newProblems([], after, 2).map((item) => item.message)).toEqual(["unused", "wrong"]);
  });

  it("tells at most 20, each on one line, saying the edit was applied", () => {
    const many = Array.from({ length: 23 }, (_, index) =>
      problem(`bad\n  detail ${index}`, index + 1),
    );
    const text = problemsText("tsc", "src/a.ts", many, 1).split("\n");
    expect(text[0]).toBe(
      "The edit was applied. The language server (tsc) reports new errors in this file:",
    );
    expect(text[1]).toBe("src/a.ts:1:1 bad detail 0");
    expect(text).toHaveLength(22);
    expect(text.at(-1)).toBe("(and 3 more)");
  });
});
