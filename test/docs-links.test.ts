// Every link of the README and of docs/ leads somewhere: the file exists, and the anchor is a
// heading of the page it points into.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anchorsOf, brokenLinks, githubAnchor, linksOf } from "./support/markdown-links.js";

const ROOT = resolve(import.meta.dirname, "..");
const README = join(ROOT, "README.md");
const PAGES = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => join(ROOT, "docs", name));

describe("the link checker", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** Writes the files into a fresh directory and returns the broken links of the first. */
  function check(files: Record<string, string>): string[] {
    dir = mkdtempSync(join(tmpdir(), "agentloop-links-"));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return brokenLinks(join(dir, Object.keys(files)[0] ?? ""));
  }

  it("makes anchors as GitHub does: lowercase, punctuation gone, spaces to hyphens", () => {
    expect(githubAnchor("Safety: permission modes and the sandbox")).toBe(
      "safety-permission-modes-and-the-sandbox",
    );
    expect(githubAnchor("The queue: Redis and BullMQ")).toBe("the-queue-redis-and-bullmq");
    expect(githubAnchor("Approving a project's servers")).toBe("approving-a-projects-servers");
    expect(githubAnchor("stream-json events")).toBe("stream-json-events");
    expect(githubAnchor("max_tokens (and `/compact`)")).toBe("max_tokens-and-compact");
  });

  it("takes a heading's text without its Markdown, and numbers a repeated heading", () => {
    const anchors = anchorsOf("# The `agentloop view` **page**\n\n## Limits\n\n## Limits\n");
    expect([...anchors]).toEqual(["the-agentloop-view-page", "limits", "limits-1"]);
  });

  it("reads links and images, but not what code blocks and code spans show", () => {
    const links = linksOf(
      "[a](a.md) ![b](b.png) `[c](c.md)`\n\n```\n[d](d.md)\n```\n\n| x | [e](e.md#x) |\n| - | - |\n",
    );
    expect(links).toEqual(["a.md", "b.png", "e.md#x"]);
  });

  it("passes a page whose links all lead somewhere", () => {
    const problems = check({
      "README.md":
        "# Top\n\n## The loop\n\n[loop](#the-loop) [page](docs/page.md#a-part) [site](https://example.com/x#y)\n",
      "docs/page.md": "# Page\n\n## A part\n\n[back](../README.md#top)\n",
    });
    expect(problems).toEqual([]);
  });

  it("fails on a link to a file that does not exist", () => {
    const problems = check({ "README.md": "# Top\n\nSee [the tools](docs/tools.md).\n" });
    expect(problems).toEqual([
      expect.stringMatching(/docs\/tools\.md points at docs\/tools\.md, which does not exist$/),
    ]);
  });

  it("fails on an anchor that no heading of this page gives", () => {
    const problems = check({ "README.md": "# Top\n\n## Local model\n\n[x](#local-models)\n" });
    expect(problems).toEqual([
      expect.stringMatching(/#local-models names #local-models, which no heading of this page/),
    ]);
  });

  it("fails on an anchor that no heading of the other page gives", () => {
    const problems = check({
      "README.md": "# Top\n\n[x](docs/page.md#the-bash-tool)\n",
      "docs/page.md": "# Page\n\n## The file tools\n",
    });
    expect(problems).toEqual([
      expect.stringMatching(/names #the-bash-tool, which no heading of docs\/page\.md gives$/),
    ]);
  });
});

describe("the README and docs/", () => {
  it.each([README, ...PAGES].map((path) => [path.slice(ROOT.length + 1), path]))(
    "%s: every relative link and anchor resolves",
    (_name, path) => {
      expect(brokenLinks(path)).toEqual([]);
    },
  );

  it("the README links every page of docs/", () => {
    const linked = new Set(
      linksOf(readFileSync(README, "utf8")).map((link) => resolve(ROOT, link.split("#")[0] ?? "")),
    );
    expect(PAGES.filter((page) => !linked.has(page))).toEqual([]);
  });
});
