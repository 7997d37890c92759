// Step, Back, Play/Pause, the slider and the keyboard all move the replay through one
// function, the track's goTo. Moving by hand pauses playback. The page has two tracks: one
// request at a time, and the lesson view's one beat at a time.

import { byId } from "./dom.js";

const PLAY_INTERVAL_MS = 900;

export interface Track {
  count: number;
  goTo(index: number): void;
  /** The position text, such as "Request 2 of 9". */
  position(index: number): string;
}

export interface Controls {
  /** Brings buttons, slider and position text in line with the place shown. */
  update(index: number): void;
  /** Moves along another track from now on, starting at `index`. */
  use(track: Track, index: number): void;
}

export function setUpControls(first: Track): Controls {
  const back = byId<HTMLButtonElement>("back");
  const step = byId<HTMLButtonElement>("step");
  const play = byId<HTMLButtonElement>("play");
  const slider = byId<HTMLInputElement>("slider");
  const position = byId("position");
  let track = first;
  let current = 0;
  const update = (index: number) => {
    current = index;
    slider.value = String(index + 1);
    position.textContent = track.position(index);
    back.disabled = index === 0;
    step.disabled = index === track.count - 1;
  };
  const use = (next: Track, index: number) => {
    pause();
    track = next;
    slider.max = String(next.count);
    track.goTo(index);
  };
  if (first.count === 0) {
    for (const control of [back, step, play, slider]) control.disabled = true;
    position.textContent = "No requests";
    return { update, use: () => {} };
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
    track.goTo(Math.min(Math.max(index, 0), track.count - 1));
  };
  const togglePlay = () => {
    if (timer !== null) return pause();
    if (current === track.count - 1) track.goTo(0);
    play.textContent = "⏸ Pause";
    timer = setInterval(() => {
      if (current < track.count - 1) track.goTo(current + 1);
      if (current === track.count - 1) pause();
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
    End: () => move(track.count - 1),
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

  slider.max = String(first.count);
  return { update, use };
}
