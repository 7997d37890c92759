// A language server that misbehaves on purpose, for the cases a real one does not show at will:
//   crash  exits with code 3 as soon as it is asked to initialize;
//   hang   reads everything and never answers, and stays when its input closes (busy, as a real
//          server writing its caches may be) until it is killed;
//   late   answers, then publishes an error for each version it is told, 1.5 s later.
// Speaks LSP's Content-Length framing on stdin and stdout, as a real server does. With
// FAKE_LSP_PID_FILE set, it writes its process id there, for a test to see whether it outlived agentloop.

import { writeFileSync } from "node:fs";

if (process.env.FAKE_LSP_PID_FILE)
  writeFileSync(process.env.FAKE_LSP_PID_FILE, String(process.pid));
const mode = process.argv[2];
if (mode === "hang") setInterval(() => {}, 60_000);
let buffer = Buffer.alloc(0);

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function receive(message) {
  if (mode === "hang") return;
  if (message.method === "initialize") {
    if (mode === "crash") process.exit(3);
    send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
  } else if (message.method === "shutdown") {
    send({ id: message.id, result: null });
  } else if (message.method === "exit") {
    process.exit(0);
  } else if (
    message.method === "textDocument/didOpen" ||
    message.method === "textDocument/didChange"
  ) {
    const { uri, version } = message.params.textDocument;
    setTimeout(() => {
      const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
      const diagnostics = [{ range, severity: 1, message: `late problem in version ${version}` }];
      send({ method: "textDocument/publishDiagnostics", params: { uri, version, diagnostics } });
    }, 1500);
  }
}

process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString();
    buffer = buffer.subarray(end + 4 + length);
    receive(JSON.parse(body));
  }
});
