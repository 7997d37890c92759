// The least a client on the official SDK can do: one streaming Messages request with a bash
// tool, through @anthropic-ai/sdk, printing the text. bench/cli.ts bundles it into one file as
// the build bundles agentloop (bare-sdk.ts) and runs it beside the bare fetch script: the gap
// between the two is what the SDK alone adds to start-up, a floor agentloop cannot go under.

import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({
  baseURL: process.env.ANTHROPIC_BASE_URL,
  apiKey: process.env.ANTHROPIC_API_KEY,
});
const stream = client.messages.stream({
  model: process.env.MODEL_ID ?? "",
  max_tokens: 8192,
  system: `You are a coding agent working in ${process.cwd()}.`,
  tools: [
    {
      name: "bash",
      description: "Run a shell command.",
      input_schema: { type: "object", properties: { command: { type: "string" } } },
    },
  ],
  messages: [{ role: "user", content: process.argv[2] ?? "hello" }],
});
stream.on("text", (text) => process.stdout.write(text));
await stream.finalMessage();
process.stdout.write("\n");
