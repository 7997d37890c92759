// Run a task from a script with agentloop as a library, and read the loop's events.
import {
  agentLoop,
  createBashTool,
  createLoopState,
  createProvider,
  createToolbox,
  resolveProvider,
} from "agentloop";

// The same configuration the CLI reads: ANTHROPIC_API_KEY / OPENAI_API_KEY, MODEL_ID, ...
const resolved = resolveProvider({ env: process.env });
if (resolved instanceof Error) throw resolved;

// A custom tool: a name, a description, a JSON schema and a function.
const wordCount = {
  name: "word_count",
  description: "Count the words in a piece of text.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to count." } },
    required: ["text"],
  },
  isReadOnly: () => true,
  run: async ({ text }) => ({
    content: String(text.split(/\s+/).filter(Boolean).length),
    isError: false,
  }),
};

const toolbox = createToolbox([createBashTool({ cwd: process.cwd() }), wordCount]);
const state = createLoopState([{ role: "user", content: "How many words are in README.md?" }]);

for await (const event of agentLoop(state, {
  provider: createProvider(resolved),
  toolbox,
  system: "You are a helpful coding agent.",
  maxTurns: 20,
})) {
  if (event.type === "tool_start")
    console.log(`tool: ${event.call.name} ${JSON.stringify(event.call.input)}`);
  if (event.type === "stop") console.log(`answer (${event.reason}): ${event.finalText}`);
}
await toolbox.dispose();
