// The least a client can do: Node's own fetch POSTs streaming Messages requests with a bash
// tool, runs each tool call with `bash -c` and sends the output back, until the model stops
// calling tools. bench/cli.ts runs this beside agentloop, so a reader sees what Node and bash
// alone cost on the same machine at the same load: the floor for start-up, turns and memory.
//
//   ANTHROPIC_BASE_URL=... ANTHROPIC_API_KEY=... MODEL_ID=... node bench/bare-fetch.mjs "task"

import { spawnSync } from "node:child_process";

const messages = [{ role: "user", content: process.argv[2] ?? "hello" }];
for (let calls = [null]; calls.length > 0; ) {
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
      messages,
    }),
  });
  const content = [];
  let pending = "";
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) {
      if (!line.startsWith("data: ")) continue;
      const event = JSON.parse(line.slice(6));
      if (event.type === "content_block_start") content.push({ ...event.content_block, json: "" });
      const block = content.at(-1);
      if (event.delta?.type === "text_delta") {
        block.text += event.delta.text;
        process.stdout.write(event.delta.text);
      }
      if (event.delta?.type === "input_json_delta") block.json += event.delta.partial_json;
    }
  }
  for (const block of content) {
    if (block.type === "tool_use") block.input = JSON.parse(block.json || "{}");
    delete block.json;
  }
  messages.push({ role: "assistant", content });
  calls = content.filter((block) => block.type === "tool_use");
  const results = calls.map((call) => {
    const run = spawnSync("bash", ["-c", call.input.command], { encoding: "utf8" });
    return { type: "tool_result", tool_use_id: call.id, content: run.stdout + run.stderr || "ok" };
  });
  if (results.length > 0) messages.push({ role: "user", content: results });
}
process.stdout.write("\n");
