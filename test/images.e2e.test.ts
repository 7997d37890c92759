// Images reach the model, through the built CLI against the fake servers of all three wire
// protocols, which check image parts the way the APIs do (media type, base64, size and
// dimensions; test/support/fake-image-check.ts): `read` of a PNG sends an image the server
// takes, a large one arrives scaled to 2,000 px, a text file named like an image sends none,
// the MCP reference server's get-tiny-image reaches the model, one rejected image becomes a
// note and the request succeeds again, and a model that reads text only gets a description.

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Protocol,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { dimensions } from "./support/fake-image-check.js";

/** An image as it arrived at the server, whatever the protocol. */
interface Arrived {
  mediaType: string;
  data: string;
}

const bodies = (model: FakeModel) =>
  model.requests().map((request) => JSON.parse(request.body) as Record<string, unknown>);

/** Every image in a request, found in each protocol's own place for it. */
function imagesIn(protocol: Protocol, body: Record<string, unknown>): Arrived[] {
  const found: Arrived[] = [];
  const fromUrl = (url: string) => {
    const [, mediaType = "", data = ""] = /^data:([^;]+);base64,(.*)$/s.exec(url) ?? [];
    found.push({ mediaType, data });
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (typeof value !== "object" || value === null) return;
    const part = value as Record<string, unknown>;
    if (protocol === "anthropic" && part.type === "image") {
      const source = part.source as { media_type: string; data: string };
      found.push({ mediaType: source.media_type, data: source.data });
    } else if (part.type === "image_url") fromUrl((part.image_url as { url: string }).url);
    else if (part.type === "input_image") fromUrl(part.image_url as string);
    else for (const field of Object.values(part)) walk(field);
  };
  walk(protocol === "responses" ? body.input : body.messages);
  return found;
}

async function png(width: number, height: number): Promise<Buffer> {
  // Noise, so the PNG is as large as a real screenshot of that size and not a few bytes.
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = (index * 7919) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const EVERYTHING = join(
  createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json"),
  "../dist/index.js",
);

describe.each(["anthropic", "openai", "responses"] as const)("images on %s", (protocol) => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel(protocol);
  });
  afterAll(() => model.close());

  async function run(sandbox: ReturnType<typeof freshSandbox>, args: string[] = []) {
    return runCli([...model.flags, ...args, "-p", "look at it"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
  }

  it("read of a PNG sends the image, with one line saying what it is", async () => {
    const sandbox = freshSandbox();
    const picture = await png(64, 48);
    writeFileSync(join(sandbox.workspace, "shot.png"), picture);
    model.script([
      reply(toolUse("r1", "read", { file_path: "shot.png" })),
      reply(text("A chart.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox);
    expect(result.code).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    const sent = bodies(model).slice(before);
    const images = imagesIn(protocol, sent[1] as Record<string, unknown>);
    expect(images).toEqual([{ mediaType: "image/png", data: picture.toString("base64") }]);
    expect(JSON.stringify(sent[1])).toContain("shot.png: PNG, 64x48");
    // The session file names the image's file and hash instead of holding its bytes.
    const session = onlySession(sandbox);
    expect(readFileSync(session.path, "utf8")).not.toContain(picture.toString("base64"));
    const stored = JSON.stringify(session.messages).match(
      /"path":"([^"]+\.png)","sha256":"[0-9a-f]{64}"/,
    );
    expect(stored?.[1]).toMatch(/images\/[0-9a-f]{64}\.png$/);
    expect(readFileSync(join(session.path, "..", stored?.[1] as string))).toEqual(picture);
  });

  it("a 4,000 x 3,000 PNG arrives at most 2,000 px on its long side", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "big.png"), await png(4_000, 3_000));
    model.script([reply(toolUse("r1", "read", { file_path: "big.png" })), reply(text("Big."))]);
    const before = model.requestCount();
    expect((await run(sandbox)).code).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    const sent = bodies(model).slice(before);
    const [image] = imagesIn(protocol, sent[1] as Record<string, unknown>);
    const size = dimensions(Buffer.from(image?.data ?? "", "base64"), image?.mediaType ?? "");
    expect(size).toEqual({ width: 2_000, height: 1_500 });
    expect(JSON.stringify(sent[1])).toMatch(/big\.png: PNG, 4000x3000 .*sent resized/);
  });

  it("a text file named fake.png is an error result and no image is sent", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "fake.png"), "just some text\n");
    model.script([
      reply(toolUse("r1", "read", { file_path: "fake.png" })),
      reply(text("Not one.")),
    ]);
    const before = model.requestCount();
    expect((await run(sandbox)).code).toBe(0);
    const sent = bodies(model).slice(before);
    expect(imagesIn(protocol, sent[1] as Record<string, unknown>)).toEqual([]);
    expect(JSON.stringify(sent[1])).toContain(
      "fake.png is not sent as an image: it is not a PNG, JPEG, GIF or WebP image.",
    );
  });

  it("the MCP reference server's get-tiny-image reaches the model", async () => {
    const sandbox = freshSandbox();
    const config = join(sandbox.home, "mcp.json");
    const server = { command: process.execPath, args: [EVERYTHING, "stdio"] };
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: server } }));
    model.script([
      reply(toolUse("m1", "mcp__everything__get-tiny-image", {})),
      reply(text("The MCP logo.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox, ["--mcp-config", config]);
    expect(result.code).toBe(0);
    const sent = bodies(model).slice(before);
    const images = imagesIn(protocol, sent[1] as Record<string, unknown>);
    expect(images).toHaveLength(1);
    expect(images[0]?.mediaType).toBe("image/png");
    expect(model.statuses().slice(before)).toEqual([200, 200]);
  });

  it("an image the server rejects once becomes a note, and the request is sent again", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "shot.png"), await png(32, 32));
    const rejection = {
      kind: "http_error" as const,
      status: 400,
      errorType: "invalid_request_error",
      message:
        "messages.2.content.0.tool_result.content.1.image.source.base64: Could not process image",
    };
    model.script([
      reply(toolUse("r1", "read", { file_path: "shot.png" })),
      rejection,
      reply(text("Fine.")),
    ]);
    const before = model.requestCount();
    const result = await run(sandbox);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("Fine.");
    const sent = bodies(model).slice(before);
    expect(sent).toHaveLength(3);
    expect(imagesIn(protocol, sent[1] as Record<string, unknown>)).toHaveLength(1);
    expect(imagesIn(protocol, sent[2] as Record<string, unknown>)).toEqual([]);
    expect(JSON.stringify(sent[2])).toMatch(
      /\[image: PNG, [\d,]+ bytes; removed: the API rejected it/,
    );
    const repairs = onlySession(sandbox).entries.filter((entry) => entry.type === "repair");
    expect(JSON.stringify(repairs)).toContain("The API rejected an image");
  });
});

describe("images on Chat Completions", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("openai");
  });
  afterAll(() => model.close());

  it("come in one user message after the turn's tool messages, labelled with their call ids", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "a.png"), await png(20, 10));
    writeFileSync(join(sandbox.workspace, "notes.txt"), "hello\n");
    model.script([
      reply(
        toolUse("r1", "read", { file_path: "a.png" }),
        toolUse("r2", "read", { file_path: "notes.txt" }),
      ),
      reply(text("Seen.")),
    ]);
    const before = model.requestCount();
    const run = await runCli([...model.flags, "-p", "look"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    const messages = (bodies(model)[before + 1] as { messages: Record<string, unknown>[] })
      .messages;
    const tail = messages.slice(-3);
    expect(tail.map((message) => message.role)).toEqual(["tool", "tool", "user"]);
    expect(tail[0]?.content).toMatch(
      /^a\.png: PNG, 20x10\n\[the image of this result is in the next user message\]$/,
    );
    const parts = tail[2]?.content as { type: string; text?: string }[];
    expect(parts.map((part) => part.type)).toEqual(["text", "image_url"]);
    expect(parts[0]?.text).toBe(`Images from tool call ${String(tail[0]?.tool_call_id)}:`);
  });

  it("a model the table marks as reading text only gets the one-line description", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "a.png"), await png(20, 10));
    model.script([reply(toolUse("r1", "read", { file_path: "a.png" })), reply(text("Ok."))]);
    const before = model.requestCount();
    const run = await runCli(["--api", "chat", "--model", "deepseek-flash", "-p", "look"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const body = bodies(model)[before + 1] as Record<string, unknown>;
    expect(imagesIn("openai", body)).toEqual([]);
    expect(JSON.stringify(body)).toMatch(
      /a\.png: PNG, 20x10\\n\[image: PNG, [\d,]+ bytes; not shown: this model does not take images\]/,
    );
  });
});

describe("images over a long session", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("compaction turns an old image into a stub with the saved file's path", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "shot.png"), await png(200, 100));
    const noisy = (k: number) => `yes "log line ${k} of a long build step" | head -c 25000; echo`;
    model.script([
      reply(toolUse("r1", "read", { file_path: "shot.png" })),
      reply(toolUse("b1", "bash", { command: noisy(1) })),
      reply(toolUse("b2", "bash", { command: noisy(2) })),
      reply(text("Built.")),
    ]);
    const before = model.requestCount();
    const run = await runCli(
      ["--permission-mode", "yolo", "--context-window", "20000", "-p", "build it"],
      { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
    );
    expect(run.code).toBe(0);
    expect(
      model
        .statuses()
        .slice(before)
        .every((status) => status === 200),
    ).toBe(true);
    const last = bodies(model).at(-1) as { messages: { content: unknown }[] };
    expect(imagesIn("anthropic", last)).toEqual([]);
    const stub = JSON.stringify(last.messages[2]?.content);
    expect(stub).toMatch(
      /\[agentloop cleared this result to save context: read .* and 1 image; saved in full to \S+r1\.txt, (\S+r1-image-1\.png)\.\]/,
    );
    const saved = /, (\S+r1-image-1\.png)\.\]/.exec(JSON.parse(stub)[0].content)?.[1] as string;
    expect(readFileSync(saved)).toEqual(readFileSync(join(sandbox.workspace, "shot.png")));
  });

  it("a resumed session sends the image it recorded, read back from beside the session file", async () => {
    const sandbox = freshSandbox();
    const picture = await png(30, 30);
    writeFileSync(join(sandbox.workspace, "shot.png"), picture);
    model.script([reply(toolUse("r1", "read", { file_path: "shot.png" })), reply(text("Seen."))]);
    const options = { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace };
    expect((await runCli(["-p", "look"], options)).code).toBe(0);
    model.script([reply(text("Still the same picture."))]);
    const before = model.requestCount();
    expect((await runCli(["--continue", "-p", "and now?"], options)).code).toBe(0);
    const resumed = bodies(model)[before] as Record<string, unknown>;
    expect(imagesIn("anthropic", resumed)).toEqual([
      { mediaType: "image/png", data: picture.toString("base64") },
    ]);
    expect(model.statuses().slice(before)).toEqual([200]);
  });
});
