// Step, Back, Play/Pause, the slider and the keyboard all move the replay through one
// function, goTo. Moving by hand pauses playback.

import { byId } from "./dom.js";

const PLAY_INTERVAL_MS = 900;

export interface Controls {
  /** Brings buttons, slider and position text in line with the step shown. */
  update(index: number): void;
}

export function setUpControls(count: number, goTo: (index: number) => void): Controls {
  const back = byId<HTMLButtonElement>("back");
  const step = byId<HTMLButtonElement>("step");
  const play = byId<HTMLButtonElement>("play");
  const slider = byId<HTMLInputElement>("slider");
  const position = byId("position");
  let current = 0;
  const update = (index: number) => {
    current = index;
    slider.value = String(index + 1);
    position.textContent = `Request ${index + 1} of ${count}`;
    back.disabled = index === 0;
    step.disabled = index === count - 1;
  };
  if (count === 0) {
    for (const control of [back, step, play, slider]) control.disabled = true;
    position.textContent = "No requests";
    return { update };
  }
  let timer: ReturnType<typeof setInterval> | null = null;
  let pendingSlide: number | null = null;

  const pause = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "▶ Play";
  };
  const move = (index: number) => {
    pause();
    goTo(Math.min(Math.max(index, 0), count - 1));
  };
  const togglePlay = () => {
    if (timer !== null) return pause();
    if (current === count - 1) goTo(0);
    play.textContent = "⏸ Pause";
    timer = setInterval(() => {
      if (current < count - 1) goTo(current + 1);
      if (current === count - 1) pause();
    }, PLAY_INTERVAL_MS);
  };

  back.addEventListener("click", () => move(current - 1));
  step.addEventListener("click", () => move(current + 1));
  play.addEventListener("click", togglePlay);
  // Dragging fires many input events; render at most one jump per frame.
  slider.addEventListener("input", () => {
    if (pendingSlide === null) {
      requestAnimationFrame(() => {
        if (pendingSlide !== null) move(pendingSlide);
        pendingSlide = null;
      });
    }
    pendingSlide = slider.valueAsNumber - 1;
  });
  const keys: Record<string, () => void> = {
    ArrowRight: () => move(current + 1),
    ArrowLeft: () => move(current - 1),
    Home: () => move(0),
    End: () => move(count - 1),
    " ": togglePlay,
  };
  document.addEventListener("keydown", (event) => {
    const run = keys[event.key];
    if (!run || event.altKey || event.ctrlKey || event.metaKey) return;
    // The slider moves itself with these keys and reports it as input.
    if (event.target === slider && event.key !== " ") return;
    event.preventDefault();
    run();
  });
  // A focused button would also "click" on the space key's release.
  document.addEventListener("keyup", (event) => event.key === " " && event.preventDefault());

  slider.max = String(count);
  return { update };
}
