// Images in the history, part by part: the fakes reject image parts the way the APIs do,
// compaction turns an old image into a stub naming its saved file, a model that reads text
// only (a local one) gets a line instead, the session file keeps images as files beside it
// and reads them back, and prepareImage refuses what is not a whole image.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { clearOldResults } from "../src/compaction/clear-results.js";
import type { ImageBlock, Message } from "../src/core/messages.js";
import { describeImages } from "../src/images/describe-images.js";
import { loadImages, storeImages } from "../src/images/image-store.js";
import { prepareImage } from "../src/images/prepare-image.js";
import { toChatHistory } from "../src/providers/local-history.js";
import { validateRequest } from "./support/fake-anthropic-validation.js";
import { imageProblem, MAX_BASE64 } from "./support/fake-image-check.js";

const directories: string[] = [];
const scratch = () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-images-"));
  directories.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#3366cc" } })
    .png()
    .toBuffer();

async function imageBlock(width = 8, height = 6): Promise<ImageBlock> {
  return {
    type: "image",
    mediaType: "image/png",
    data: (await png(width, height)).toString("base64"),
  };
}

/** A call to read and its result holding `image`, then the model's answer. */
function history(image: ImageBlock): Message[] {
  return [
    { role: "user", content: "look" },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "r1", name: "read", input: { file_path: "a.png" } }],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "r1",
          content: [{ type: "text", text: "a.png: PNG, 8x6" }, image],
        },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "A blue square." }] },
  ];
}

describe("the fake servers check image parts as the APIs do", () => {
  it("take a real PNG and refuse a wrong type, bad base64, a lie about the type, too many bytes", async () => {
    const data = (await png(4, 4)).toString("base64");
    expect(imageProblem("image/png", data)).toBeNull();
    expect(imageProblem("image/bmp", data)).toMatch(/^Input should be 'image\/jpeg'/);
    expect(imageProblem("image/png", "not base64!")).toBe("Invalid base64 data");
    expect(imageProblem("image/jpeg", data)).toBe(
      "Image does not match the provided media type image/jpeg",
    );
    expect(imageProblem("image/png", Buffer.from("hello").toString("base64"))).toBe(
      "Could not process image",
    );
    expect(imageProblem("image/png", "A".repeat(MAX_BASE64 + 4))).toMatch(
      /^image exceeds 5 MB maximum/,
    );
  });

  it("the Anthropic fake answers a bad image in a tool_result with the API's path to it", () => {
    const bad: ImageBlock = { type: "image", mediaType: "image/png", data: "AAAA" };
    const [, call, result] = history(bad);
    const wire = (result as { content: { content: unknown[] }[] }).content[0] as {
      content: unknown[];
    };
    wire.content[1] = {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: "AAAA" },
    };
    const problem = validateRequest({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "look" }, call, result],
    });
    expect(problem).toBe(
      "messages.2.content.0.tool_result.content.1.image.source.base64: Could not process image",
    );
  });
});

describe("images and the rest of the history", () => {
  it("compaction replaces an old image by a stub naming the saved image file", async () => {
    const directory = scratch();
    const image = await imageBlock();
    const { messages, cleared } = clearOldResults(history(image), {
      keepTokens: 0,
      tokensOf: (t) => t.length,
      directory,
    });
    expect(cleared).toHaveLength(1);
    const [result] = (messages[2] as { content: { content: unknown }[] }).content;
    const stub = result?.content as string;
    expect(stub).toMatch(
      /^\[agentloop cleared this result .* and 1 image; saved in full to \S+r1\.txt, (\S+r1-image-1\.png)\.\]$/,
    );
    const path = /, (\S+\.png)\.\]$/.exec(stub)?.[1] as string;
    expect(readFileSync(path).toString("base64")).toBe(image.data);
  });

  it("a local model's history has a line where the image was", async () => {
    const items = toChatHistory("", describeImages(history(await imageBlock())), {
      layout: { beforeCall: "", afterThought: "" },
      thinks: false,
    });
    const text = JSON.stringify(items);
    expect(text).toMatch(
      /a\.png: PNG, 8x6\\n\[image: PNG, [\d,]+ bytes; not shown: this model does not take images\]/,
    );
    expect(text).not.toContain("base64");
  });

  it("the session store writes an image once, by hash, and reads it back; a changed file becomes a note", async () => {
    const directory = scratch();
    const image = await imageBlock();
    const message = history(image)[2] as Message;
    const stored = storeImages(message, directory, "s1");
    expect(JSON.stringify(stored)).not.toContain(image.data);
    expect(loadImages(stored, directory)).toEqual(message);
    const path = /"path":"([^"]+)"/.exec(JSON.stringify(stored))?.[1] as string;
    expect(storeImages(message, directory, "s1")).toEqual(stored);
    writeFileSync(join(directory, path), "changed");
    expect(JSON.stringify(loadImages(stored, directory))).toContain(
      `[image ${path} is missing or changed since it was recorded]`,
    );
  });
});

describe("prepareImage", () => {
  it("sends a small image as it is and scales a large one to 2,000 px", async () => {
    const small = await prepareImage(await png(10, 20));
    expect(small.ok && small.prepared.resized).toBeNull();
    const large = await prepareImage(await png(2_400, 600));
    expect(large.ok && large.prepared.resized).toMatchObject({ width: 2_000, height: 500 });
  });

  it("refuses a large image cut off half way, found while scaling it", async () => {
    const whole = await png(3_000, 2_000);
    const checked = await prepareImage(whole.subarray(0, Math.floor(whole.length / 2)));
    expect(checked).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^it starts like a PNG image but cannot be decoded/),
    });
  });

  it("refuses bytes that start like a PNG and are cut off", async () => {
    const whole = await png(50, 50);
    const checked = await prepareImage(whole.subarray(0, 60));
    expect(checked).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^it starts like a PNG image but cannot be decoded/),
    });
  });
});
