// One self-contained HTML document per session: stylesheet, script and the session's timeline
// all inline, so the same file works served from 127.0.0.1 or opened from disk offline. The
// header and the notice about unreadable lines are plain HTML, so they show even without
// the script.
// Nothing is fetched: images a tool returned are data: URLs inside the timeline (img-src data:).

import type { SessionProblem } from "../session/session-file.js";
import { viewerStyle } from "./page/style.js";
import type { ViewerData } from "./viewer-data.js";

const LISTED_PROBLEMS = 50;

export function renderViewerPage(timeline: ViewerData, script: string): string {
  const { header } = timeline;
  const title = header ? `agentloop session ${header.id}` : "agentloop session";
  const facts = header
    ? [header.model, header.provider, header.cwd, `started ${header.startedAt}`]
    : ["The session header is missing, so its model and directory are unknown."];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${viewerStyle}</style>
</head>
<body>
<header class="session">
<h1>${escapeHtml(title)}</h1>
<p>${facts.map(escapeHtml).join(" · ")}</p>
</header>
${problemsNotice(timeline.problems)}
<p id="code-origin" class="origin ${timeline.code.exact ? "exact" : "approximate"}">${escapeHtml(timeline.code.origin)}</p>
<nav class="controls">
<button id="back" type="button" title="Back (Left arrow)">◀ Back</button>
<button id="play" type="button" title="Play or pause (Space)">▶ Play</button>
<button id="step" type="button" title="Step (Right arrow)">Step ▶</button>
<input id="slider" type="range" min="1" max="1" value="1" aria-label="Request">
<span id="position"></span>
<button id="lesson-toggle" type="button" aria-pressed="false" title="The loop's five steps, one step at a time (L)">Lesson view</button>
</nav>
<section id="step-info" aria-live="polite"></section>
<main>
<section class="panel" id="conversation-panel"><h2>Conversation</h2><div class="scroll" id="conversation"></div></section>
${LESSON_PANEL}
<section class="panel"><h2 id="request-title">messages[] sent with this request</h2><div class="scroll json" id="request"></div></section>
<section class="panel"><h2 id="code-title">The code that ran</h2><div class="scroll" id="code"></div></section>
</main>
<script type="application/json" id="timeline-data">${embedJson(timeline)}</script>
<script>${script}</script>
</body>
</html>
`;
}

// The course's five steps (s01), each with the line of the course's Python that does it.
const LESSON_STEPS: [string, string][] = [
  ["The prompt goes into messages[]", 'messages = [{"role": "user", "content": query}]'],
  [
    "messages[] and the tools go to the model",
    "response = client.messages.create(messages=messages, tools=TOOLS, ...)",
  ],
  [
    "The reply is appended to messages[]",
    'messages.append({"role": "assistant", "content": response.content})',
  ],
  ["Each tool_use the reply asks for is run", 'output = run_bash(block.input["command"])'],
  [
    "The tool_results go back into messages[], each with its tool_use_id",
    'messages.append({"role": "user", "content": results})',
  ],
];

const LESSON_PANEL = `<section class="panel" id="lesson" hidden><h2>The loop in five steps</h2><div class="scroll">
<ol id="lesson-steps">${LESSON_STEPS.map(
  ([what, line], index) =>
    `<li data-lesson="${index + 1}"><b>${escapeHtml(what)}</b><code>${escapeHtml(line)}</code></li>`,
).join("")}</ol>
<p id="lesson-aside" aria-live="polite"></p></div></section>`;

function problemsNotice(problems: SessionProblem[]): string {
  if (problems.length === 0) return "";
  const count = problems.length === 1 ? "1 line" : `${problems.length} lines`;
  const listed = problems
    .slice(0, LISTED_PROBLEMS)
    .map((problem) => `<li>line ${problem.line}: ${escapeHtml(problem.reason)}</li>`);
  if (problems.length > LISTED_PROBLEMS) {
    listed.push(`<li>and ${problems.length - LISTED_PROBLEMS} more</li>`);
  }
  return `<div class="notice" id="problems" role="alert"><strong>${count} of this session file could not be read; showing everything else.</strong><ul>${listed.join("")}</ul></div>`;
}

// Inside <script type="application/json"> only "</script" could end the element early;
// escaping every "<" rules it out and JSON.parse reads the escape back unchanged.
function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
