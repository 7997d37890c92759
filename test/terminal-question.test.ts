// The shape every question at the terminal has, and that a terminal asks one at a time.

import { describe, expect, it } from "vitest";
import { askQuestion, type Question, questionsAsked } from "../src/terminal/question.js";
import { openLineTerminal as terminal } from "./support/line-terminal.js";

const question = (name: string): Question => ({
  headline: `Allow ${name}?`,
  detail: [`what ${name} does`, "why it is asked"],
  choices: "[y]es, [n]o:",
});

describe("a question at the terminal", () => {
  it("shows what will happen, then the detail indented, then the choices where the answer is typed", async () => {
    const { input, output, readline, shown } = terminal();
    const answer = askQuestion({ readline, output }, question("this"));
    input.write("y\n");
    expect(await answer).toBe("y");
    readline.close();
    expect(shown()).toBe("\nAllow this?\n  what this does\n  why it is asked\n[y]es, [n]o: ");
  });

  it("asks a second question only once the first is answered, and counts those it showed", async () => {
    const { input, output, readline, shown } = terminal();
    const first = askQuestion({ readline, output }, question("the first"));
    const second = askQuestion({ readline, output }, question("the second"));
    expect(shown()).not.toContain("the second");
    expect(questionsAsked(readline)).toBe(1);
    input.write("y\n");
    expect(await first).toBe("y");
    expect(questionsAsked(readline)).toBe(2);
    input.write("n\n");
    expect(await second).toBe("n");
    readline.close();
    expect(shown().indexOf("Allow the second?")).toBeGreaterThan(
      shown().indexOf("Allow the first?"),
    );
  });

  it("is ended by Ctrl-C, which ends the questions waiting after it too, unasked", async () => {
    const { output, readline, shown } = terminal();
    const first = askQuestion({ readline, output }, question("the first"));
    const second = askQuestion({ readline, output }, question("the second"));
    // What readline reports when Ctrl-C is pressed at a terminal.
    readline.emit("SIGINT");
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    expect(shown()).not.toContain("the second");
    readline.close();
  });

  it("holds the progress line while it is open, and gives the prompt it replaced back", async () => {
    const { input, output, readline } = terminal();
    readline.setPrompt("› ");
    const held: string[] = [];
    const hold = () => {
      held.push("held");
      return () => held.push("released");
    };
    const answer = askQuestion({ readline, output, hold }, question("this"));
    expect(held).toEqual(["held"]);
    input.write("y\n");
    await answer;
    expect(held).toEqual(["held", "released"]);
    expect(readline.getPrompt()).toBe("› ");
    readline.close();
  });
});
