// The lesson view: the page reduced to the course's five steps of the loop, lit one at a time as
// the replay moves a beat at a time, with messages[] growing beside them and the code of the beat
// below. What a chapter does beside the five steps (a hook, a compaction, the loop's stop) lights
// none of them and is said in one line under the list.

import type { Beat } from "../beats.js";
import type { Sources } from "./code-view.js";
import type { Track } from "./controls.js";
import { byId } from "./dom.js";

export interface LessonTrack extends Track {
  /** The beat the lesson view was last at. */
  current(): number;
}

export interface LessonShow {
  /** Shows messages[] as `beat` left it; new is what `previous`, the beat before it, lacked. */
  messages(beat: Beat, previous: Beat | undefined): void;
  code(beat: Beat): void;
  /** Called after every move, with the beat's index. */
  moved(index: number): void;
}

export function lessonTrack(
  beats: readonly Beat[],
  sources: Sources,
  show: LessonShow,
): LessonTrack {
  const stepsList = byId("lesson-steps");
  const aside = byId("lesson-aside");
  let current = 0;
  const goTo = (index: number) => {
    const beat = beats[index];
    if (!beat) return;
    for (const step of stepsList.querySelectorAll<HTMLElement>("[data-lesson]")) {
      const lit = step.dataset.lesson === String(beat.lesson);
      step.classList.toggle("lit", lit);
      if (lit) step.setAttribute("aria-current", "step");
      else step.removeAttribute("aria-current");
    }
    aside.textContent = asideLine(beat, beats[index + 1], sources);
    show.messages(beat, beats[index - 1]);
    show.code(beat);
    current = index;
    show.moved(index);
  };
  return {
    count: beats.length,
    goTo,
    position: (index) =>
      `Step ${index + 1} of ${beats.length} · request ${(beats[index]?.step ?? 0) + 1}`,
    current: () => current,
  };
}

/** What the lit step cannot say: why the loop goes on or ends, or what a chapter did instead. */
function asideLine(beat: Beat, next: Beat | undefined, sources: Sources): string {
  if (beat.transition) {
    return `transition_reason: ${beat.transition}. The loop goes on: back to step 2 with the longer messages[].`;
  }
  if (beat.lesson === 3 && next?.lesson !== 4) {
    return "The reply asks for no tool: there is nothing to run, and the loop is about to end.";
  }
  if (beat.lesson !== null) return "";
  const key = beat.code[0] ?? "";
  const said = sources[key]?.note ?? key;
  if (key === "loop.stop") return `The loop stops (${beat.label ?? "no reason recorded"}). ${said}`;
  return `Beside the five steps: ${said}`;
}
