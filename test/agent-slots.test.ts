// The agent tool's limit on read-only children running at once: the fifth waits for a slot.

import { describe, expect, it } from "vitest";
import { createSlots } from "../src/agents/slots.js";

describe("slots for children running at once", () => {
  it("lets `size` holders in, and the next one in order when one gives its slot back", async () => {
    const slots = createSlots(4);
    const held = await Promise.all([1, 2, 3, 4].map(() => slots.take()));
    const order: string[] = [];
    const fifth = slots.take().then((release) => {
      order.push("fifth");
      return release;
    });
    const sixth = slots.take().then((release) => {
      order.push("sixth");
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    held[0]?.();
    (await fifth)();
    held[1]?.();
    await sixth;
    expect(order).toEqual(["fifth", "sixth"]);
  });

  it("counts a slot given back twice once", async () => {
    const slots = createSlots(1);
    const release = await slots.take();
    release();
    release();
    await slots.take();
    let third = false;
    void slots.take().then(() => {
      third = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(third).toBe(false);
  });
});
