// Where the web part offers the provider's search: only when the session's provider runs it,
// asked at each request (so /model moving to a provider without it takes it away), and never
// to a subagent.

import { describe, expect, it } from "vitest";
import type { PartHost } from "../src/core/part.js";
import type { Provider } from "../src/core/provider.js";
import { createWebPart } from "../src/web/part.js";

function started(provider: () => Partial<Provider>) {
  const part = createWebPart({
    mode: () => "auto",
    rules: { allow: [], ask: [], deny: [] } as never,
    workspace: "/nowhere",
    env: {},
    fetch: false,
    search: true,
    allowHosts: [],
  });
  part.attach?.({ provider } as unknown as PartHost);
  return (forChild = false) =>
    (part.tools?.({ mode: "auto", forChild }) ?? []).map((tool) => tool.name);
}

describe("the web part's search", () => {
  it("is offered while the provider runs it, and not once it does not", () => {
    let provider: Partial<Provider> = { name: "anthropic", webSearch: true };
    const offered = started(() => provider);
    expect(offered()).toEqual(["web_search"]);
    provider = { name: "openai" };
    expect(offered()).toEqual([]);
  });

  it("is the session's own: a subagent is not offered it", () => {
    const offered = started(() => ({ name: "anthropic", webSearch: true }));
    expect(offered(true)).toEqual([]);
  });
});
