/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The viewer page: reads the timeline embedded in the HTML and replays it one request at a
// time, the conversation on the left, the messages[] array that was sent in the middle and the
// code that did each step on the right. After a compaction that array is another one (stubbed
// results, or a summary and the latest turns). The lesson view replays the same session one beat
// at a time against the course's five steps.

import type { Beat } from "../beats.js";
import type { Step } from "../timeline.js";
import type { ViewerData } from "../viewer-data.js";
import { codePanel } from "./code-panel.js";
import { setUpControls, type Track } from "./controls.js";
import { renderConversationItem } from "./conversation.js";
import { byId, element } from "./dom.js";
import { renderMessageJson, showMessageAsNew } from "./json-view.js";
import { lessonTrack } from "./lesson.js";
import { renderStepInfo } from "./step-info.js";
import { linkToolCalls } from "./tool-links.js";
import { WindowedList } from "./windowed-list.js";

const data = JSON.parse(
  document.getElementById("timeline-data")?.textContent ?? "null",
) as ViewerData;
const { items, messages, contexts, steps, beats } = data;
const beatsOfStep: Beat[][] = steps.map(() => []);
for (const beat of beats) beatsOfStep[beat.step]?.push(beat);

const conversationPanel = byId("conversation");
const requestPanel = byId("request");
const requestTitle = byId("request-title");
const stepInfo = byId("step-info");
const code = codePanel(byId("code"), data.code.sources);
const codeTitle = byId("code-title");

const conversation = new WindowedList(conversationPanel, (index) => {
  const item = items[index];
  if (!item) throw new Error(`the conversation has no item ${index}`);
  return renderConversationItem(item, messages, data.subagents ?? {});
});
// The history the shown request sent a prefix of, as indexes into `messages`.
let shownContext = -1;
let context: number[] = [];
const request = new WindowedList(
  requestPanel,
  (position) => {
    const message = messages[context[position] ?? -1];
    if (!message) throw new Error(`messages[] has no message ${position}`);
    return renderMessageJson(message, position);
  },
  showMessageAsNew,
);
const links = linkToolCalls(document.body);

/** Shows the first `count` messages of history `contextId`, marking those `isNew` says are new. */
function showMessages(contextId: number, count: number, isNew: (position: number) => boolean) {
  const replaced = contextId !== shownContext;
  shownContext = contextId;
  context = contexts[contextId] ?? [];
  request.show(count, isNew, replaced);
}

const messageCount = (count: number) => (count === 1 ? "1 message" : `${count} messages`);

let shownRequest = 0;
const showRequest = (index: number) => {
  const step = steps[index];
  if (!step) return;
  shownRequest = index;
  const previous = steps[index - 1];
  const shownBefore = previous?.shownCount ?? 0;
  conversation.show(step.shownCount, (item) => item >= shownBefore);
  showMessages(step.context, step.sentCount, newlySent(index));
  const sent = messageCount(step.sentCount);
  requestTitle.textContent = step.summary
    ? `messages[] sent with request ${step.request}, the summary request (${sent})`
    : `messages[] sent with request ${step.request} (${sent})`;
  renderStepInfo(stepInfo, step, items);
  code.show(beatsOfStep[index] ?? []);
  codeTitle.textContent = `The code that ran for request ${step.request}`;
  controls.update(index);
  links.refresh();
};

/**
 * Which positions of step `index`'s messages[] the request before it did not send. A summary
 * request is a detour: the request after it is compared with the one before it, so the turns
 * a summary keeps verbatim are not shown as new.
 */
function newlySent(index: number): (position: number) => boolean {
  const step = steps[index] as Step;
  let before = index - 1;
  while (!step.summary && steps[before]?.summary) before -= 1;
  const previous = steps[before];
  const shown = (at: Step) => ({ context: at.context, count: at.sentCount });
  return newSince(previous && shown(previous), shown(step));
}

/** Which positions of `now`'s messages[] the history `before` (a prefix of a context) lacked. */
function newSince(
  before: { context: number; count: number } | undefined,
  now: { context: number; count: number },
): (position: number) => boolean {
  if (!before) return () => true;
  if (before.context === now.context) return (position) => position >= before.count;
  // After a compaction or a rewind the arrays differ: new is whatever the one before lacked.
  const had = new Set(contexts[before.context]?.slice(0, before.count));
  const indexes = contexts[now.context] ?? [];
  return (position) => !had.has(indexes[position] ?? -1);
}

const requests: Track = {
  count: steps.length,
  goTo: showRequest,
  position: (index) => `Request ${index + 1} of ${steps.length}`,
};
const controls = setUpControls(requests);

const lesson = lessonTrack(beats, data.code.sources, {
  messages(beat, previous) {
    showMessages(beat.context, beat.count, newSince(previous, beat));
    requestTitle.textContent = `messages[] after this step (${messageCount(beat.count)})`;
  },
  code(beat) {
    code.show([beat]);
    codeTitle.textContent = "The code of this step";
  },
  moved(index) {
    controls.update(index);
    links.refresh();
  },
});

// The lesson view keeps the place: it opens at the shown request's first beat, and closes at the
// request of the beat it was at.
const lessonToggle = byId<HTMLButtonElement>("lesson-toggle");
const hiddenInLesson = [byId("conversation-panel"), stepInfo];
const setLesson = (on: boolean) => {
  if (on === document.body.classList.contains("lesson")) return;
  document.body.classList.toggle("lesson", on);
  lessonToggle.setAttribute("aria-pressed", String(on));
  for (const node of hiddenInLesson) node.hidden = on;
  byId("lesson").hidden = !on;
  if (on) {
    const first = beats.findIndex((beat) => beat.step === shownRequest);
    controls.use(lesson, Math.max(first, 0));
  } else {
    controls.use(requests, beats[lesson.current()]?.step ?? 0);
  }
};
lessonToggle.addEventListener("click", () =>
  setLesson(!document.body.classList.contains("lesson")),
);
document.addEventListener("keydown", (event) => {
  if (event.key.toLowerCase() !== "l" || event.altKey || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  setLesson(!document.body.classList.contains("lesson"));
});
byId("conversation").addEventListener("click", (event) => {
  const item = (event.target as Element | null)?.closest<HTMLElement>("[data-index]");
  if (item) code.focusItem(Number(item.dataset.index));
});

if (steps.length > 0) {
  showRequest(0);
} else {
  lessonToggle.disabled = true;
  conversation.show(items.length, () => false);
  const empty = element("p", { className: "empty" }, ["This session has no messages."]);
  requestPanel.append(empty);
}
document.body.dataset.ready = "true";
// Lets tests wait for the page and the benchmark time it.
performance.mark("viewer-ready");
