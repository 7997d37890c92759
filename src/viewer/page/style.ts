// The page's stylesheet, inlined into the HTML so the page needs nothing from the network.

export const viewerStyle = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --text: #1d232b; --muted: #657080; --border: #d9dee5;
  --user: #e6f0ff; --assistant: #ffffff; --tool: #f3f0ff; --ok: #edf8ef; --ok-edge: #3f9b52;
  --error: #fdeced; --error-edge: #d1343f; --new: #fff6d6; --link: #ff9f1c; --accent: #3367d6;
  --key: #8a3ab9; --string: #1d7a3c; --number: #b35c00; --literal: #3367d6;
  --added: #1a7f37; --removed: #cf222e;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181d; --panel: #1c2027; --text: #dde3ea; --muted: #8b95a3; --border: #323944;
    --user: #1d2c44; --assistant: #1c2027; --tool: #272238; --ok: #17291c; --error: #3a1c20;
    --new: #3a3320; --key: #c98be8; --string: #7fd195; --number: #f0a35e; --literal: #7ea6ff;
    --added: #56d364; --removed: #ff7b72;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body {
  display: flex; flex-direction: column; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
code, pre, .json { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
header.session { padding: 10px 16px 6px; }
header.session h1 { font-size: 16px; margin: 0; }
header.session p { margin: 2px 0 0; color: var(--muted); font-size: 12.5px; }
.notice {
  margin: 6px 16px; padding: 8px 12px; border: 1px solid var(--error-edge); border-radius: 6px;
  background: var(--error);
}
.notice ul { margin: 4px 0 0; padding-left: 20px; }
nav.controls { display: flex; gap: 8px; align-items: center; padding: 6px 16px; }
nav.controls button {
  font: inherit; padding: 4px 12px; border: 1px solid var(--border); border-radius: 6px;
  background: var(--panel); color: var(--text); cursor: pointer; min-width: 72px;
}
nav.controls button:disabled { opacity: 0.5; cursor: default; }
nav.controls input[type="range"] { flex: 1; accent-color: var(--accent); }
#position { color: var(--muted); min-width: 150px; text-align: right; }
#step-info { display: flex; flex-wrap: wrap; gap: 6px; padding: 2px 16px 8px; min-height: 30px; }
.fact {
  border: 1px solid var(--border); border-radius: 12px; padding: 1px 9px; background: var(--panel);
  font-size: 12.5px;
}
.fact b { font-weight: 600; color: var(--muted); margin-right: 4px; }
.fact.stopped { border-color: var(--accent); }
.fact.stopped.failed { border-color: var(--error-edge); background: var(--error); }
main {
  flex: 1; min-height: 0; display: grid; grid-auto-flow: column; grid-auto-columns: minmax(0, 1fr);
  gap: 12px; padding: 0 16px 12px;
}
[hidden] { display: none !important; }
.panel {
  display: flex; flex-direction: column; min-height: 0; background: var(--panel);
  border: 1px solid var(--border); border-radius: 8px;
}
.panel h2 { font-size: 13px; margin: 0; padding: 8px 12px; border-bottom: 1px solid var(--border); }
.scroll { flex: 1; overflow: auto; padding: 10px 12px; overflow-anchor: auto; }
/* The panels' sizes come from the page, never from their content: a step relays out one panel. */
.scroll { contain: strict; }
.earlier {
  display: block; width: 100%; margin-bottom: 8px; font: inherit; font-size: 12.5px; padding: 4px;
  border: 1px dashed var(--border); border-radius: 6px; background: none; color: var(--muted); cursor: pointer;
}
.earlier[hidden] { display: none; }
.empty { color: var(--muted); font-style: italic; }

.item { margin-bottom: 10px; border-radius: 8px; }
.item.new { background: var(--new); }
.role { font-size: 11.5px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; margin-bottom: 3px; }
.bubble { padding: 7px 10px; border-radius: 8px; border: 1px solid var(--border); white-space: pre-wrap; overflow-wrap: anywhere; }
.message.user .bubble { background: var(--user); }
.message.assistant .bubble { background: var(--assistant); }
.message > * + * { margin-top: 6px; }
.card { border: 1px solid var(--border); border-radius: 8px; overflow: hidden; }
.card .label { display: flex; gap: 8px; align-items: baseline; padding: 4px 10px; font-size: 12.5px; font-weight: 600; }
.card .label code { font-weight: 400; color: var(--muted); font-size: 11.5px; }
.card .label .status { margin-left: auto; }
.card .body { padding: 6px 10px; border-top: 1px solid var(--border); }
.tool-call { background: var(--tool); }
.thinking { color: var(--muted); font-style: italic; border-style: dashed; }
.thinking .unseen { padding: 0 10px 4px; font-size: 11.5px; font-style: normal; }
.tool-result { background: var(--ok); border-left: 4px solid var(--ok-edge); }
.tool-result.error { background: var(--error); border-left-color: var(--error-edge); }
.tool-result.error .status { color: var(--error-edge); }
details.subagent > summary { cursor: pointer; margin-top: 6px; font-weight: 600; }
.subagent-run { margin: 6px 0 0 12px; padding-left: 10px; border-left: 2px solid var(--ok-edge); }
.result-image { display: block; max-width: 100%; max-height: 480px; margin-top: 6px; border: 1px solid var(--ok-edge); }
.marker { padding: 6px 10px; border-radius: 8px; border: 1px dashed var(--border); color: var(--muted); font-size: 12.5px; }
.marker.failed { border-color: var(--error-edge); color: var(--error-edge); background: var(--error); }
.marker pre.hook-output { margin: 4px 0 0; white-space: pre-wrap; font-size: 12px; }
/* A compaction is a boundary across the conversation: requests after it send another history. */
.compaction {
  margin: 14px 0; padding: 6px 10px; border-radius: 0; text-align: center; font-size: 12.5px;
  color: var(--muted); border-top: 2px dashed var(--accent); border-bottom: 2px dashed var(--accent);
}
.compaction .rule { font-weight: 600; color: var(--accent); }
.by-loop .bubble { border-style: dashed; }
.fact.compacted { border-color: var(--accent); }
/* The file tools: an edit or a written file as a diff, a read as its file and lines. */
.file-header { display: flex; flex-wrap: wrap; gap: 6px; align-items: baseline; }
.file-header + * { margin-top: 4px; }
.file-header .path { font-weight: 600; overflow-wrap: anywhere; }
.file-header .tag {
  font-size: 11.5px; color: var(--muted); border: 1px solid var(--border); border-radius: 10px; padding: 0 7px;
}
pre.diff { background: var(--panel); border: 1px solid var(--border); border-radius: 4px; padding: 2px 0; }
pre.diff > span { display: block; min-height: 1lh; padding: 0 4px; border-radius: 2px; }
pre.diff > .add { color: var(--added); background: color-mix(in srgb, var(--added) 14%, transparent); }
pre.diff > .del { color: var(--removed); background: color-mix(in srgb, var(--removed) 14%, transparent); }
pre.diff > .hunk { color: var(--accent); background: color-mix(in srgb, var(--accent) 10%, transparent); }
pre.diff > .file { font-weight: 600; color: var(--muted); }
pre.diff > .headline { font-weight: 600; margin-bottom: 2px; }
pre.diff > .note { color: var(--muted); font-style: italic; }
details.fold > summary { cursor: pointer; color: var(--accent); font-size: 12.5px; margin-top: 4px; }
.folded:has(> details[open]) > .preview { display: none; }
[data-tool-id] { cursor: pointer; }
[data-tool-id].linked { outline: 3px solid var(--link); outline-offset: 1px; }
/* A message holding the linked call or result: marked on its summary line, even when folded. */
.json-message.linked > summary { background: color-mix(in srgb, var(--link) 30%, transparent); }

/* Whose code is shown: a quiet line when it wrote the session, a notice when it is the nearest. */
.origin { margin: 0 16px; font-size: 12px; color: var(--muted); }
.origin.approximate {
  margin: 4px 16px; padding: 4px 10px; border: 1px solid var(--number); border-radius: 6px;
  background: color-mix(in srgb, var(--number) 10%, transparent); color: var(--text);
}
nav.controls #lesson-toggle[aria-pressed="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
/* The code beside each step: what did it, where, and the lines with the one that did it lit. */
.beat { border: 1px solid var(--border); border-radius: 8px; margin-bottom: 10px; overflow: hidden; }
.beat.focused { outline: 3px solid var(--link); outline-offset: 1px; }
.beat > header { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; padding: 4px 10px; font-size: 12.5px; background: var(--bg); }
.beat .beat-kind { font-weight: 600; }
.beat .transition { color: var(--accent); font-family: var(--mono); font-size: 11.5px; }
.excerpt { padding: 4px 10px 8px; border-top: 1px solid var(--border); }
.excerpt p { margin: 2px 0; font-size: 12.5px; }
.excerpt .where { color: var(--muted); }
.excerpt .function { color: var(--key); font-weight: 600; }
.excerpt.missing { color: var(--muted); font-style: italic; }
pre.code { margin-top: 4px; font-size: 12px; line-height: 1.45; }
/* A long line wraps under itself, its number alone at the left. */
pre.code .line { display: block; min-height: 1lh; padding-left: 3.2em; text-indent: -3.2em; }
pre.code .line.comment { color: var(--muted); }
pre.code .line.here { background: color-mix(in srgb, var(--link) 28%, transparent); font-weight: 600; }
pre.code .number { display: inline-block; width: 3.2em; padding-right: 0.8em; text-indent: 0; text-align: right; color: var(--muted); user-select: none; }
/* The lesson view: the five steps, the current one lit. */
#lesson-steps { margin: 0; padding-left: 1.6em; }
#lesson-steps li { margin: 0 0 10px; padding: 6px 8px; border-radius: 8px; border: 1px solid transparent; color: var(--muted); }
#lesson-steps li b { display: block; font-weight: 600; }
#lesson-steps li code { display: block; margin-top: 2px; font-size: 11.5px; overflow-wrap: anywhere; }
#lesson-steps li.lit { color: var(--text); border-color: var(--accent); background: color-mix(in srgb, var(--accent) 12%, transparent); }
#lesson-aside { font-size: 12.5px; color: var(--accent); min-height: 2.6em; }
/* A phone: one column, each panel a screenful, the page scrolls. */
@media (max-width: 760px) {
  html, body { height: auto; }
  nav.controls { flex-wrap: wrap; }
  nav.controls input[type="range"] { flex-basis: 100%; order: 9; }
  #position { min-width: 0; text-align: left; }
  nav.controls { position: sticky; top: 0; z-index: 1; background: var(--bg); }
  main { grid-auto-flow: row; grid-auto-columns: auto; padding: 0 8px 8px; }
  .panel { height: 70vh; }
  #lesson { height: auto; }
  #lesson .scroll { contain: none; }
}

.json { line-height: 1.5; }
.json details > summary { cursor: pointer; list-style: none; }
.json details > summary::-webkit-details-marker { display: none; }
.json details > summary::before { content: "▾"; display: inline-block; width: 1em; color: var(--muted); }
.json details:not([open]) > summary::before { content: "▸"; }
.json details:not([open]) > summary::after { content: " " attr(data-closed); color: var(--muted); }
.json .children { padding-left: 1.3em; border-left: 1px dotted var(--border); margin-left: 0.35em; }
.json .line { padding-left: 1em; white-space: pre-wrap; overflow-wrap: anywhere; }
.json .key { color: var(--key); }
.json .string { color: var(--string); }
.json .number { color: var(--number); }
.json .literal { color: var(--literal); }
.json .index { color: var(--muted); margin-right: 6px; }
.json .close { padding-left: 1em; }
.json-message { margin-bottom: 4px; border-radius: 6px; }
.json-message.new { background: var(--new); }
.json-message > summary .preview { color: var(--muted); }
.json .long[open] > summary > .string { display: none; }
.json .bracket { color: var(--muted); }
`;
