/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The viewer page: reads the timeline embedded in the HTML and replays it one request at a
// time, the conversation on the left and the messages[] array that was sent on the right. After
// a compaction that array is another one (stubbed results, or a summary and the latest turns).

import type { Step, Timeline } from "../timeline.js";
import { setUpControls } from "./controls.js";
import { renderConversationItem } from "./conversation.js";
import { byId, element } from "./dom.js";
import { renderMessageJson, showMessageAsNew } from "./json-view.js";
import { renderStepInfo } from "./step-info.js";
import { linkToolCalls } from "./tool-links.js";
import { WindowedList } from "./windowed-list.js";

const timeline = JSON.parse(
  document.getElementById("timeline-data")?.textContent ?? "null",
) as Timeline;
const { items, messages, contexts, steps } = timeline;

const conversationPanel = byId("conversation");
const requestPanel = byId("request");
const requestTitle = byId("request-title");
const stepInfo = byId("step-info");

const conversation = new WindowedList(conversationPanel, (index) => {
  const item = items[index];
  if (!item) throw new Error(`the conversation has no item ${index}`);
  return renderConversationItem(item, messages, timeline.subagents ?? {});
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

const goTo = (index: number) => {
  const step = steps[index];
  if (!step) return;
  const previous = steps[index - 1];
  const shownBefore = previous?.shownCount ?? 0;
  conversation.show(step.shownCount, (item) => item >= shownBefore);
  const replaced = step.context !== shownContext;
  shownContext = step.context;
  context = contexts[step.context] ?? [];
  request.show(step.sentCount, newlySent(index), replaced);
  const sent = step.sentCount === 1 ? "1 message" : `${step.sentCount} messages`;
  requestTitle.textContent = step.summary
    ? `messages[] sent with request ${step.request}, the summary request (${sent})`
    : `messages[] sent with request ${step.request} (${sent})`;
  renderStepInfo(stepInfo, step, items);
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
  if (!previous) return () => true;
  if (previous.context === step.context) return (position) => position >= previous.sentCount;
  // After a compaction the arrays differ: new is whatever message the request before lacked.
  const sentBefore = new Set(contexts[previous.context]?.slice(0, previous.sentCount));
  const now = contexts[step.context] ?? [];
  return (position) => !sentBefore.has(now[position] ?? -1);
}

const controls = setUpControls(steps.length, goTo);

if (steps.length > 0) {
  goTo(0);
} else {
  conversation.show(items.length, () => false);
  const empty = element("p", { className: "empty" }, ["This session has no messages."]);
  requestPanel.append(empty);
}
document.body.dataset.ready = "true";
// Lets tests wait for the page and the benchmark time it.
performance.mark("viewer-ready");
