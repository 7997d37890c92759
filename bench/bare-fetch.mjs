// The least a client can do before its first request: Node's own fetch POSTs one streaming
// Messages request with a bash tool and prints the text it gets back. bench/cli.ts spawns this
// beside agentloop, so a reader sees what Node alone costs on the same machine at the same load.
//
//   ANTHROPIC_BASE_URL=... ANTHROPIC_API_KEY=... MODEL_ID=... node bench/bare-fetch.mjs "task"

const response = await fetch(`${process.env.ANTHROPIC_BASE_URL}/v1/messages`, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    "x-api-key": process.env.ANTHROPIC_API_KEY ?? "",
    "anthropic-version": "2023-06-01",
  },
  body: JSON.stringify({
    model: process.env.MODEL_ID,
    max_tokens: 8192,
    stream: true,
    system: `You are a coding agent working in ${process.cwd()}.`,
    tools: [
      {
        name: "bash",
        description: "Run a shell command.",
        input_schema: { type: "object", properties: { command: { type: "string" } } },
      },
    ],
    messages: [{ role: "user", content: process.argv[2] ?? "hello" }],
  }),
});
let pending = "";
for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
  const lines = (pending + chunk).split("\n");
  pending = lines.pop();
  for (const line of lines) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6));
    if (event.delta?.type === "text_delta") process.stdout.write(event.delta.text);
  }
}
process.stdout.write("\n");
