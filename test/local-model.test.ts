import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { type DownloadStart, resolveLocalModel } from "../src/providers/local-model.js";
import type { DownloadProgress } from "../src/providers/model-download.js";
import { closedPortUrl } from "./support/closed-port.js";
import {
  type FakeModelHost,
  fakeGguf,
  sha256,
  startFakeModelHost,
} from "./support/fake-model-host.js";

const MODEL = fakeGguf(3 * 1024 * 1024, 7);
const REFERENCE = "hf:acme/tiny-GGUF/quants/tiny-Q4_K_M.gguf";

let hub: FakeModelHost;
let home: string;
let cache: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  hub = await startFakeModelHost([
    { at: "acme/tiny-GGUF/quants/tiny-Q4_K_M.gguf", bytes: MODEL },
    { at: "acme/tiny-GGUF/quants/tiny-Q8_0.gguf", bytes: fakeGguf(1000, 8) },
  ]);
  home = await mkdtemp(join(tmpdir(), "agentloop-local-model-"));
  cache = join(home, "cache");
  env = { HOME: home, XDG_CACHE_HOME: cache, HF_ENDPOINT: hub.url };
});

afterEach(async () => {
  await hub.close();
  await rm(home, { recursive: true, force: true });
});

/** Where a file from `endpoint` is cached: a hub other than huggingface.co has its own folder. */
const hubFolder = (endpoint: string) => join(cache, "agentloop/models/hubs", hostOf(endpoint));
const hostOf = (endpoint: string) => new URL(endpoint).host.replace(":", "_");
const cachedTiny = (endpoint = hub.url) =>
  join(hubFolder(endpoint), "acme/tiny-GGUF/quants/tiny-Q4_K_M.gguf");

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as Error;
}

async function place(path: string, bytes: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}

describe("resolveLocalModel with a Hugging Face reference", () => {
  it("says the size before downloading, then downloads and verifies the file into the cache", async () => {
    const starts: DownloadStart[] = [];
    const progress: DownloadProgress[] = [];

    const model = await resolveLocalModel(REFERENCE, {
      env,
      onDownloadStart: (info) => starts.push(info),
      onProgress: (event) => progress.push(event),
    });

    expect(model).toEqual({ path: cachedTiny(), name: "tiny-Q4_K_M.gguf" });
    expect(starts).toEqual([
      {
        name: "tiny-Q4_K_M.gguf",
        url: `${hub.url}/acme/tiny-GGUF/resolve/main/quants/tiny-Q4_K_M.gguf`,
        bytes: MODEL.length,
        destination: cachedTiny(),
        resumingFrom: 0,
      },
    ]);
    expect(progress.at(-1)).toEqual({ receivedBytes: MODEL.length, totalBytes: MODEL.length });
    expect(sha256(await readFile(model.path))).toBe(sha256(MODEL));
    expect(hub.requests.map((r) => r.path)).toEqual([
      "/api/models/acme/tiny-GGUF/tree/main/quants",
      "/acme/tiny-GGUF/resolve/main/quants/tiny-Q4_K_M.gguf",
    ]);
  });

  it("uses the cached file the second time without a single request", async () => {
    await resolveLocalModel(REFERENCE, { env });
    const hits = hub.requests.length;

    const again = await resolveLocalModel(REFERENCE, { env, onDownloadStart: () => {} });

    expect(again.path).toBe(cachedTiny());
    expect(hub.requests.length).toBe(hits);
  });

  it.each([
    ["the default model", undefined, "unsloth/Qwen3.5-4B-GGUF/Qwen3.5-4B-Q4_K_M.gguf"],
    ["the previous default, by name", "qwen3-4b", "Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf"],
  ])(
    "maps %s to its place in ~/.cache without going online when it is there",
    async (_, reference, file) => {
      // huggingface.co's own folder: no request is made, the file being there.
      const homeOnly = { HOME: home };
      const expected = join(home, ".cache/agentloop/models/huggingface", file);
      await place(expected, fakeGguf(64));

      const model = await resolveLocalModel(reference, { env: homeOnly });

      expect(model).toEqual({ path: expected, name: basename(file) });
    },
  );

  it("never gives a file from another hub the name huggingface.co's file is loaded by", async () => {
    const canonical = join(home, ".cache/agentloop/models/huggingface/acme/tiny-GGUF/quants");
    const model = await resolveLocalModel(REFERENCE, { env: { HOME: home, HF_ENDPOINT: hub.url } });
    expect(model.path).toBe(
      join(
        home,
        ".cache/agentloop/models/hubs",
        hostOf(hub.url),
        "acme/tiny-GGUF/quants/tiny-Q4_K_M.gguf",
      ),
    );
    expect(existsSync(canonical)).toBe(false);
  });

  it("keeps a revision other than main apart in the cache, and asks for it", async () => {
    const model = await resolveLocalModel(`${REFERENCE}#v1.0`, { env });

    expect(model.path).toBe(
      join(hubFolder(hub.url), "acme/tiny-GGUF@v1.0/quants/tiny-Q4_K_M.gguf"),
    );
    expect(hub.downloads()[0]?.path).toBe("/acme/tiny-GGUF/resolve/v1.0/quants/tiny-Q4_K_M.gguf");
  });

  it("tells exactly where to put the file when the hub cannot be reached", async () => {
    const nowhere = await closedPortUrl();

    const error = await rejection(
      resolveLocalModel(REFERENCE, { env: { ...env, HF_ENDPOINT: nowhere } }),
    );

    expect(error.message).toBe(
      `Cannot download ${REFERENCE} (cannot reach ${new URL(nowhere).host}: ECONNREFUSED). Download it from ${nowhere}/acme/tiny-GGUF/resolve/main/quants/tiny-Q4_K_M.gguf and save it as ${cachedTiny(nowhere)}, or pass --model with the path of a .gguf file.`,
    );
  });

  it("resumes an unfinished download and says how much was already there", async () => {
    await place(`${cachedTiny()}.part`, MODEL.subarray(0, 1_000_000));
    const starts: DownloadStart[] = [];

    const model = await resolveLocalModel(REFERENCE, {
      env,
      onDownloadStart: (info) => starts.push(info),
    });

    expect(starts[0]?.resumingFrom).toBe(1_000_000);
    expect(hub.downloads()[0]?.headers.range).toBe("bytes=1000000-");
    expect(sha256(await readFile(model.path))).toBe(sha256(MODEL));
  });

  it("deletes a download that does not match the hub's sha256", async () => {
    hub.faults.corrupt = true;

    const error = await rejection(resolveLocalModel(REFERENCE, { env }));

    expect(error.message).toContain("does not match its checksum");
    expect(existsSync(cachedTiny())).toBe(false);
    expect(existsSync(`${cachedTiny()}.part`)).toBe(false);
  });

  it("lists the repository's .gguf files when the one asked for is not there", async () => {
    const error = await rejection(
      resolveLocalModel("hf:acme/tiny-GGUF/quants/tiny-Q2_K.gguf", { env }),
    );

    expect(error.message).toBe(
      "acme/tiny-GGUF has no file quants/tiny-Q2_K.gguf at revision main; its .gguf files there are tiny-Q4_K_M.gguf, tiny-Q8_0.gguf.",
    );
  });

  it("sends HF_TOKEN to the hub, for gated models", async () => {
    hub.faults.requireToken = "hf_secret";

    await resolveLocalModel(REFERENCE, { env: { ...env, HF_TOKEN: "hf_secret" } });

    expect(hub.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer hf_secret",
      "Bearer hf_secret",
    ]);
  });

  it("asks for HF_TOKEN when the hub refuses without one", async () => {
    hub.faults.requireToken = "hf_secret";

    const error = await rejection(resolveLocalModel(REFERENCE, { env }));

    expect(error.message).toContain("refused to list acme/tiny-GGUF (HTTP 401)");
    expect(error.message).toContain("set HF_TOKEN to an access token");
  });

  it("rejects a reference without a .gguf file in it", async () => {
    const error = await rejection(resolveLocalModel("hf:acme/tiny-GGUF", { env }));

    expect(error.message).toContain("write hf:owner/repo/path/to/file.gguf");
    expect(hub.requests).toEqual([]);
  });

  it("rejects a path that would climb out of the cache", async () => {
    const error = await rejection(resolveLocalModel("hf:acme/tiny-GGUF/../../x.gguf", { env }));

    expect(error.message).toContain("is not a Hugging Face model reference");
  });
});

describe("resolveLocalModel with an address", () => {
  let other: FakeModelHost;

  beforeEach(async () => {
    other = await startFakeModelHost([
      { at: "/files/tiny.gguf", bytes: MODEL },
      { at: "/files/page.gguf", bytes: Buffer.from("<!doctype html><p>tiny</p>") },
    ]);
  });

  afterEach(() => other.close());

  it("downloads into the cache under the host, saying the size the server gave", async () => {
    const starts: DownloadStart[] = [];
    const url = `${other.url}/files/tiny.gguf`;

    const model = await resolveLocalModel(url, { env, onDownloadStart: (i) => starts.push(i) });

    const { hostname, port } = new URL(other.url);
    expect(model.path).toBe(
      join(cache, `agentloop/models/urls/${hostname}_${port}/files/tiny.gguf`),
    );
    expect(starts[0]?.bytes).toBe(MODEL.length);
    expect(sha256(await readFile(model.path))).toBe(sha256(MODEL));
  });

  it("says there is no such file before announcing a download", async () => {
    const url = `${other.url}/files/missing.gguf`;
    const starts: DownloadStart[] = [];

    const error = await rejection(
      resolveLocalModel(url, { env, onDownloadStart: (i) => starts.push(i) }),
    );

    expect(error.message).toBe(`There is no file at ${url} (HTTP 404).`);
    expect(starts).toEqual([]);
  });

  it("never sends HF_TOKEN to a host other than the hub", async () => {
    const tokenEnv = { ...env, HF_TOKEN: "hf_secret" };

    await resolveLocalModel(REFERENCE, { env: tokenEnv });
    await resolveLocalModel(`${other.url}/files/tiny.gguf`, { env: tokenEnv });

    expect(hub.requests.every((r) => r.headers.authorization === "Bearer hf_secret")).toBe(true);
    expect(other.requests.length).toBeGreaterThan(0);
    expect(other.requests.some((r) => r.headers.authorization !== undefined)).toBe(false);
  });

  it("treats a hub address like the hf: reference it names", async () => {
    const model = await resolveLocalModel(
      `${hub.url}/acme/tiny-GGUF/blob/main/quants/tiny-Q4_K_M.gguf`,
      { env },
    );

    expect(model.path).toBe(cachedTiny());
  });

  it("deletes a download that turns out not to be a GGUF file", async () => {
    const url = `${other.url}/files/page.gguf`;

    const error = await rejection(resolveLocalModel(url, { env }));

    expect(error.message).toBe(
      `The file downloaded from ${url} is not a GGUF model, so it was deleted; if that address is a web page about the model, use the link that downloads the file itself.`,
    );
    expect(other.downloads()).toHaveLength(1);
  });
});

describe("resolveLocalModel with a path", () => {
  it("uses an existing GGUF file where it is, relative to cwd or to ~", async () => {
    await place(join(home, "models/mine.gguf"), fakeGguf(64));

    const relative = await resolveLocalModel("./models/mine.gguf", { env, cwd: home });
    const bare = await resolveLocalModel("models/mine.gguf", { env, cwd: home });
    const tilde = await resolveLocalModel("~/models/mine.gguf", { env });
    const absolute = await resolveLocalModel(join(home, "models/mine.gguf"), { env });

    for (const model of [relative, bare, tilde, absolute]) {
      expect(model).toEqual({ path: join(home, "models/mine.gguf"), name: "mine.gguf" });
    }
    expect(hub.requests).toEqual([]);
  });

  it("names a model file that does not exist", async () => {
    const error = await rejection(resolveLocalModel("./missing.gguf", { env, cwd: home }));

    expect(error.message).toBe(
      `The model file ./missing.gguf does not exist (looked for ${join(home, "missing.gguf")}).`,
    );
  });

  it("refuses a file that is not GGUF", async () => {
    const path = join(home, "model.safetensors");
    await place(path, "not a gguf file at all");

    const error = await rejection(resolveLocalModel(path, { env }));

    expect(error.message).toBe(`${path} is not a GGUF model file (it does not start with "GGUF").`);
  });

  it("says what it accepts when the reference is neither a file nor a model address", async () => {
    const error = await rejection(resolveLocalModel("qwen3", { env, cwd: home }));

    expect(error.message).toBe(
      '"qwen3" is not a model the local provider can run: pass the name of one it knows (qwen3.5-4b, qwen3-4b), the path of a .gguf file, hf:owner/repo/path/to/file.gguf (optionally ending in #revision), or an https:// address of a .gguf file.',
    );
  });
});
