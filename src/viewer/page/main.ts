/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The viewer page: reads the timeline embedded in the HTML and replays it one request at a
// time, the conversation on the left and the messages[] array that was sent on the right.

import type { Timeline } from "../timeline.js";
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
const { items, messages, steps } = timeline;

const conversationPanel = byId("conversation");
const requestPanel = byId("request");
const requestTitle = byId("request-title");
const stepInfo = byId("step-info");

const conversation = new WindowedList(conversationPanel, (index) => {
  const item = items[index];
  if (!item) throw new Error(`the conversation has no item ${index}`);
  return renderConversationItem(item, messages);
});
const request = new WindowedList(
  requestPanel,
  (index) => {
    const message = messages[index];
    if (!message) throw new Error(`messages[] has no message ${index}`);
    return renderMessageJson(message, index);
  },
  showMessageAsNew,
);
const links = linkToolCalls(document.body);

const goTo = (index: number) => {
  const step = steps[index];
  if (!step) return;
  const previous = steps[index - 1];
  conversation.show(step.shownCount, previous?.shownCount ?? 0);
  request.show(step.sentCount, previous?.sentCount ?? 0);
  const sent = step.sentCount === 1 ? "1 message" : `${step.sentCount} messages`;
  requestTitle.textContent = `messages[] sent with request ${step.request} (${sent})`;
  renderStepInfo(stepInfo, step);
  controls.update(index);
  links.refresh();
};
const controls = setUpControls(steps.length, goTo);

if (steps.length > 0) {
  goTo(0);
} else {
  conversation.show(items.length, items.length);
  const empty = element("p", { className: "empty" }, ["This session has no messages."]);
  requestPanel.append(empty);
}
document.body.dataset.ready = "true";
// Lets tests wait for the page and the benchmark time it.
performance.mark("viewer-ready");
