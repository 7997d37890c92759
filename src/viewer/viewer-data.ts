// What a viewer page carries: the session's timeline and the code beside its steps.

import type { CodeBeside } from "./code-origin.js";
import type { Timeline } from "./timeline.js";

export interface ViewerData extends Timeline {
  code: CodeBeside;
}
