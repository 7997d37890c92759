import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionMode } from "../src/core/permission-mode.js";
import { heldPart } from "../src/core/project-settings.js";
import type { PermissionAnswer, PermissionQuestion } from "../src/permissions/policy.js";
import { noRules, type PermissionRules } from "../src/permissions/rules.js";
import { createFetchGate, ruleForDomain } from "../src/web/fetch-gate.js";
import { readWebSettings } from "../src/web/web-settings.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-web-perm-"));
  dirs.push(dir);
  return dir;
};

function gate(
  mode: PermissionMode,
  rules: Partial<PermissionRules> = {},
  answers: PermissionAnswer[] | null = null,
) {
  const workspace = fresh();
  const asked: PermissionQuestion[] = [];
  const all = { ...noRules(), ...rules };
  const ask = answers
    ? async (question: PermissionQuestion) => {
        asked.push(question);
        return answers.shift() ?? "no";
      }
    : undefined;
  return {
    gate: createFetchGate({
      mode: () => mode,
      rules: all,
      workspace,
      // Where "always" would remember an approval: inside the test's own directory.
      env: { XDG_CONFIG_HOME: join(workspace, "config"), XDG_STATE_HOME: join(workspace, "state") },
      ask,
    }),
    asked,
    workspace,
    rules: all,
  };
}

const url = (text: string) => new URL(text);

describe("web_fetch's permission is judged by domain", () => {
  it("matches a domain rule exactly, a *. rule on subdomains, and tool:web_fetch on every domain", () => {
    expect(ruleForDomain(["web_fetch(domain:example.com)"], "example.com")).toBe(
      "web_fetch(domain:example.com)",
    );
    expect(ruleForDomain(["web_fetch(domain:example.com)"], "docs.example.com")).toBeUndefined();
    expect(ruleForDomain(["web_fetch(domain:*.example.com)"], "docs.example.com")).toBeDefined();
    expect(ruleForDomain(["web_fetch(domain:*.example.com)"], "badexample.com")).toBeUndefined();
    expect(ruleForDomain(["WebFetch(domain:example.com)"], "example.com")).toBeDefined();
    expect(ruleForDomain(["tool:web_fetch"], "anything.test")).toBe("tool:web_fetch");
    expect(ruleForDomain(["npm test", "tool:bash"], "example.com")).toBeUndefined();
  });

  it("refuses an unlisted domain where no one can be asked, naming the rule to add", async () => {
    const { gate: check } = gate("auto");
    expect(await check.admit(url("https://docs.example.com/a"))).toBe(
      'Permission needed: fetching from docs.example.com is not allowed by any rule, and there is no terminal to ask. To allow it, add "web_fetch(domain:docs.example.com)" to "permissions": {"allow": [...]} in your settings (~/.config/agentloop/settings.json).',
    );
  });

  it("fetches a domain an allow rule names, in every mode", async () => {
    for (const mode of ["ask", "auto", "read-only", "plan"] as const) {
      const { gate: check } = gate(mode, { allow: ["web_fetch(domain:example.com)"] });
      expect(await check.admit(url("https://example.com/"))).toBeNull();
    }
  });

  it("lets deny beat allow, even in yolo", async () => {
    const { gate: check } = gate("yolo", {
      allow: ["tool:web_fetch"],
      deny: ["web_fetch(domain:evil.test)"],
    });
    expect(await check.admit(url("http://evil.test/"))).toBe(
      'Permission denied: fetching from evil.test matches the deny rule "web_fetch(domain:evil.test)".',
    );
    expect(await check.admit(url("http://fine.test/"))).toBeNull();
  });

  it("fetches an unlisted domain in yolo without asking", async () => {
    const { gate: check, asked } = gate("yolo", {}, []);
    expect(await check.admit(url("https://example.com/"))).toBeNull();
    expect(asked).toEqual([]);
  });

  it("asks at the terminal, offering the domain's rule for always, and always remembers it", async () => {
    const { gate: check, asked, workspace, rules } = gate("auto", {}, ["always"]);
    expect(await check.admit(url("https://example.com/x"))).toBeNull();
    expect(asked).toEqual([
      {
        tool: "web_fetch",
        action: { kind: "input", input: { url: "https://example.com/x" } },
        reason: "web_fetch would send a request to example.com",
        rules: ["web_fetch(domain:example.com)"],
      },
    ]);
    expect(rules.allow).toContain("web_fetch(domain:example.com)");
    const saved = JSON.parse(
      readFileSync(join(workspace, ".agentloop", "settings.local.json"), "utf8"),
    );
    expect(saved.permissions.allow).toEqual(["web_fetch(domain:example.com)"]);
    // Remembered: the next fetch from that domain is not asked about.
    expect(await check.admit(url("https://example.com/y"))).toBeNull();
    expect(asked).toHaveLength(1);
  });

  it("says the user declined, with their reason", async () => {
    const { gate: check } = gate("ask", {}, [{ no: "not that site" }]);
    expect(await check.admit(url("https://example.com/"))).toBe(
      'The user declined to fetch from example.com. They said: "not that site"',
    );
  });

  it("asks even for an allowed domain when an ask rule names it", async () => {
    const { gate: check, asked } = gate(
      "yolo",
      { allow: ["tool:web_fetch"], ask: ["web_fetch(domain:example.com)"] },
      ["yes"],
    );
    expect(await check.admit(url("https://example.com/"))).toBeNull();
    expect(asked[0]?.reason).toBe("fetching from example.com matches an ask rule");
  });
});

describe("webFetch.allowHosts comes from the user's own settings only", () => {
  function settings(user: unknown, project: unknown) {
    const home = fresh();
    const workspace = fresh();
    mkdirSync(join(home, "agentloop"), { recursive: true });
    mkdirSync(join(workspace, ".agentloop"), { recursive: true });
    if (user) writeFileSync(join(home, "agentloop", "settings.json"), JSON.stringify(user));
    if (project)
      writeFileSync(join(workspace, ".agentloop", "settings.json"), JSON.stringify(project));
    return readWebSettings(workspace, { XDG_CONFIG_HOME: home });
  }

  it("reads host:port names, IPv6 ones without brackets", async () => {
    const read = await settings(
      { webFetch: { allowHosts: ["Wiki.Internal:443", "[::1]:5173"] } },
      null,
    );
    expect(read).toEqual({ allowHosts: ["wiki.internal:443", "::1:5173"], ignored: null });
  });

  it("ignores a project's webFetch, and says so", async () => {
    const read = await settings(null, { webFetch: { allowHosts: ["127.0.0.1:8080"] } });
    expect(read.allowHosts).toEqual([]);
    expect(read.ignored).toMatch(
      /^"webFetch" in .*\.agentloop\/settings\.json is ignored: only your own settings/,
    );
  });

  it("is a key no trust of a project's file lets in, so it asks no one to trust it", () => {
    expect(heldPart({ webFetch: { allowHosts: ["127.0.0.1:8080"] } })).toEqual({});
  });

  it("refuses a name without its port", async () => {
    await expect(settings({ webFetch: { allowHosts: ["wiki.internal"] } }, null)).rejects.toThrow(
      /lists "wiki.internal", which is not "host:port" \(for example "localhost:5173"\)\.$/,
    );
  });
});
