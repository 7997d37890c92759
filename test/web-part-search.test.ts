// Where the web part offers the provider's search: only when the session's provider runs it,
// asked at each request (so /model moving to a provider without it takes it away), and never
// to a subagent; and web_fetch to a subagent only when the person named it.

import { describe, expect, it } from "vitest";
import type { PartHost, SessionPart } from "../src/core/part.js";
import type { Provider } from "../src/core/provider.js";
import { createWebPart } from "../src/web/part.js";
import { createSearchPart } from "../src/web/search-part.js";

/** The web part with web_fetch, and `choices` for what it offers. */
const withFetch = (choices: { search: boolean; fetchForChild?: boolean }) =>
  createWebPart({
    mode: () => "auto",
    rules: { allow: [], ask: [], deny: [] } as never,
    workspace: "/nowhere",
    env: {},
    fetch: true,
    allowHosts: [],
    ...choices,
  });

/** The part with search alone, and the part with web_fetch beside it. */
const parts: Record<string, () => SessionPart> = {
  "search alone": createSearchPart,
  "beside web_fetch": () => withFetch({ search: true }),
};

function started(make: () => SessionPart, provider: () => Partial<Provider>) {
  const part = make();
  part.attach?.({ provider } as unknown as PartHost);
  return (forChild = false) =>
    (part.tools?.({ mode: "auto", forChild }) ?? [])
      .map((tool) => tool.name)
      .filter((name) => name !== "web_fetch");
}

describe.each(Object.entries(parts))("the web part's search, %s", (_, make) => {
  it("is offered while the provider runs it, and not once it does not", () => {
    let provider: Partial<Provider> = { name: "anthropic", webSearch: true };
    const offered = started(make, () => provider);
    expect(offered()).toEqual(["web_search"]);
    provider = { name: "openai" };
    expect(offered()).toEqual([]);
  });

  it("is the session's own: a subagent is not offered it", () => {
    const offered = started(make, () => ({ name: "anthropic", webSearch: true }));
    expect(offered(true)).toEqual([]);
  });
});

describe("web_fetch for a subagent", () => {
  const offeredToChild = (fetchForChild: boolean) =>
    (
      withFetch({ search: false, fetchForChild }).tools?.({ mode: "auto", forChild: true }) ?? []
    ).map((tool) => tool.name);

  it("is offered when the person's tools named it, and not when it came with the default set", () => {
    expect(offeredToChild(true)).toEqual(["web_fetch"]);
    expect(offeredToChild(false)).toEqual([]);
  });
});
