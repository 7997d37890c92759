import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { ModelDownloadError } from "../src/providers/download-errors.js";
import { formatProgress } from "../src/providers/download-progress.js";
import { type DownloadProgress, downloadFile } from "../src/providers/model-download.js";
import { closedPort } from "./support/closed-port.js";
import {
  type FakeModelHost,
  fakeGguf,
  sha256,
  startFakeModelHost,
} from "./support/fake-model-host.js";

const MODEL = fakeGguf(3 * 1024 * 1024, 42);
const MODEL_SHA = sha256(MODEL);

let host: FakeModelHost;
let dir: string;
let destination: string;
let url: string;

beforeEach(async () => {
  host = await startFakeModelHost([{ at: "/models/tiny.gguf", bytes: MODEL }]);
  dir = await mkdtemp(join(tmpdir(), "agentloop-download-"));
  destination = join(dir, "nested", "tiny.gguf");
  url = `${host.url}/models/tiny.gguf`;
});

afterEach(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<ModelDownloadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelDownloadError);
  return error as ModelDownloadError;
}

describe("downloadFile", () => {
  it("writes the file, reporting progress that only grows and ends at the total", async () => {
    host.faults.chunkDelayMs = 5;
    const events: DownloadProgress[] = [];
    const started = Date.now();

    await downloadFile({ url, destination, onProgress: (event) => events.push(event) });

    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
    expect(existsSync(`${destination}.part`)).toBe(false);
    expect(events.length).toBeGreaterThan(1);
    const received = events.map((event) => event.receivedBytes);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    expect(events.at(-1)).toEqual({ receivedBytes: MODEL.length, totalBytes: MODEL.length });
    // At most ten a second, plus the first chunk and the final report.
    expect(events.length).toBeLessThanOrEqual((Date.now() - started) / 100 + 3);
  });

  it("verifies the expected size and sha256 before giving the file its name", async () => {
    await downloadFile({
      url,
      destination,
      expectedBytes: MODEL.length,
      expectedSha256: MODEL_SHA,
    });

    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
  });

  it("keeps the part when the server cuts the connection, and says that running again resumes", async () => {
    host.faults.cutAfter = 1024 * 1024;

    const error = await failure(downloadFile({ url, destination, expectedSha256: MODEL_SHA }));

    expect(error.kind).toBe("interrupted");
    const kept = (await stat(`${destination}.part`)).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(1024 * 1024);
    expect(error.message).toBe(
      `The connection to ${new URL(url).host} was cut after ${kept} of ${MODEL.length} bytes of tiny.gguf; run again to resume the download.`,
    );
    expect(existsSync(destination)).toBe(false);
  });

  it("resumes a cut download with a Range request and ends with the very same bytes", async () => {
    host.faults.cutAfter = 1024 * 1024;
    await failure(downloadFile({ url, destination, expectedSha256: MODEL_SHA }));
    const partSize = (await stat(`${destination}.part`)).size;

    await downloadFile({
      url,
      destination,
      expectedBytes: MODEL.length,
      expectedSha256: MODEL_SHA,
    });

    expect(host.downloads().at(-1)?.headers.range).toBe(`bytes=${partSize}-`);
    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
    expect(existsSync(`${destination}.part`)).toBe(false);
  });

  it("starts over when the server answers a Range request with the whole file", async () => {
    host.faults.cutAfter = 1024 * 1024;
    await failure(downloadFile({ url, destination }));
    host.faults.ignoreRange = true;

    await downloadFile({ url, destination, expectedSha256: MODEL_SHA });

    expect(host.downloads().at(-1)?.headers.range).toBeDefined();
    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
  });

  it("finishes without a request when the part is already complete", async () => {
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(`${destination}.part`, MODEL);
    const before = host.requests.length;

    await downloadFile({
      url,
      destination,
      expectedBytes: MODEL.length,
      expectedSha256: MODEL_SHA,
    });

    expect(host.requests.length).toBe(before);
    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
  });

  it("finishes a complete part when the server has no more bytes for it (HTTP 416)", async () => {
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(`${destination}.part`, MODEL);

    await downloadFile({ url, destination, expectedSha256: MODEL_SHA });

    expect(host.downloads()[0]?.headers.range).toBe(`bytes=${MODEL.length}-`);
    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
  });

  it("deletes a download whose sha256 does not match, leaving neither file nor part", async () => {
    host.faults.corrupt = true;

    const error = await failure(downloadFile({ url, destination, expectedSha256: MODEL_SHA }));

    expect(error.kind).toBe("verification");
    expect(error.message).toContain("does not match its checksum");
    expect(error.message).toContain("running again downloads it anew");
    expect(existsSync(destination)).toBe(false);
    expect(existsSync(`${destination}.part`)).toBe(false);
  });

  it("deletes a download whose size is not the expected one", async () => {
    const error = await failure(
      downloadFile({ url, destination, expectedBytes: MODEL.length - 1 }),
    );

    expect(error.kind).toBe("verification");
    expect(error.message).toContain(`where ${MODEL.length - 1} were expected`);
    expect(existsSync(`${destination}.part`)).toBe(false);
  });

  it("stops at an abort, keeps the part, and a later call resumes it", async () => {
    host.faults.stallAfter = 1024 * 1024;
    const controller = new AbortController();

    const aborted = await downloadFile({
      url,
      destination,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    }).catch((error: unknown) => error);

    expect((aborted as Error).name).toBe("AbortError");
    const partSize = (await stat(`${destination}.part`)).size;
    expect(partSize).toBeGreaterThan(0);
    expect(partSize).toBeLessThan(MODEL.length);

    await downloadFile({ url, destination, expectedSha256: MODEL_SHA });

    expect(host.downloads().at(-1)?.headers.range).toBe(`bytes=${partSize}-`);
    expect(sha256(await readFile(destination))).toBe(MODEL_SHA);
  });

  it("names the address of a file the server does not have", async () => {
    const missing = `${host.url}/models/missing.gguf`;

    const error = await failure(downloadFile({ url: missing, destination }));

    expect(error.kind).toBe("not_found");
    expect(error.message).toBe(`There is no file at ${missing} (HTTP 404).`);
  });

  it("sends the Hugging Face token as a Bearer token", async () => {
    host.faults.requireToken = "hf_secret";

    await downloadFile({ url, destination, huggingFace: { token: "hf_secret" } });

    expect(host.downloads()[0]?.headers.authorization).toBe("Bearer hf_secret");
  });

  it("tells how to get a token when Hugging Face refuses a download without one", async () => {
    host.faults.requireToken = "hf_secret";

    const error = await failure(downloadFile({ url, destination, huggingFace: {} }));

    expect(error.kind).toBe("unauthorized");
    expect(error.message).toContain(`refused to send ${url} (HTTP 401)`);
    expect(error.message).toContain("set HF_TOKEN to an access token");
  });

  it("says the host cannot be reached when nothing listens there", async () => {
    const port = await closedPort();

    const error = await failure(
      downloadFile({ url: `http://127.0.0.1:${port}/tiny.gguf`, destination }),
    );

    expect(error.kind).toBe("offline");
    expect(error.message).toBe(
      `Cannot reach 127.0.0.1:${port} to download tiny.gguf (ECONNREFUSED); check the network connection and run again.`,
    );
  });

  it("says which path cannot be written when the destination is unusable", async () => {
    const blocker = join(dir, "a-file");
    await writeFile(blocker, "");

    const error = await failure(
      downloadFile({ url, destination: join(blocker, "models", "tiny.gguf") }),
    );

    expect(error.kind).toBe("disk");
    expect(error.message).toBe(
      `Cannot write ${join(blocker, "models", "tiny.gguf")} (ENOTDIR): something that is not a directory is in the way.`,
    );
  });

  it.skipIf(!existsSync("/dev/full"))(
    "says the disk is full, and that running again resumes",
    async () => {
      await mkdir(dirname(destination), { recursive: true });
      await symlink("/dev/full", `${destination}.part`);

      const error = await failure(downloadFile({ url, destination }));

      expect(error.kind).toBe("disk");
      expect(error.message).toBe(
        `Cannot write ${destination}.part (ENOSPC): the disk is full; free some space and run again to resume.`,
      );
    },
  );

  it("is a ConfigError, so the CLI prints its sentence rather than a stack", async () => {
    const error = await failure(downloadFile({ url: `${host.url}/nothing.gguf`, destination }));

    expect(error).toBeInstanceOf(ConfigError);
  });
});

describe("formatProgress", () => {
  const GB = 1000 ** 3;

  it("draws a bar, the sizes in the unit of the total, the speed and the time left", () => {
    expect(formatProgress(1.1 * GB, 2.5 * GB, 26_190, { name: "Qwen3-4B-Q4_K_M.gguf" })).toBe(
      "Qwen3-4B-Q4_K_M.gguf  [#########-----------]  1.1 / 2.5 GB  42 MB/s  0:34 left",
    );
  });

  it("leaves resumed bytes out of the speed", () => {
    expect(formatProgress(2 * GB, 2.5 * GB, 10_000, { resumedFrom: 1.5 * GB })).toBe(
      "[################----]  2.0 / 2.5 GB  50 MB/s  0:10 left",
    );
  });

  it("shows only what arrived when the total is unknown", () => {
    expect(formatProgress(12_500_000, null, 1_000)).toBe("13 MB  13 MB/s");
  });

  it("has no speed or time left before any time has passed", () => {
    expect(formatProgress(0, 2.5 * GB, 0)).toBe("[--------------------]  0.0 / 2.5 GB");
  });

  it("counts hours when the rest takes that long", () => {
    expect(formatProgress(1_000_000, 10 * GB, 1_000)).toBe(
      "[--------------------]  0.0 / 10 GB  1.0 MB/s  2:46:39 left",
    );
  });
});
