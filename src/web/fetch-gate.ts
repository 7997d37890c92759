// Whether web_fetch may send a request to a domain: the URL itself leaves the machine, so a
// fetch is judged like a command that uses the network. Rules name a domain the way Claude
// Code's WebFetch rules do (https://code.claude.com/docs/en/permissions): `web_fetch(domain:
// example.com)` in the allow, ask or deny list, `*.example.com` for its subdomains, and
// `tool:web_fetch` for every domain. Deny beats ask beats allow. yolo fetches what no rule
// denies; every other mode asks a person at the REPL (yes / no / always for this domain) and,
// where no one can answer, refuses a domain no rule allows, naming the rule to add.

import type { PermissionMode } from "../core/permission-mode.js";
import { rememberAllowRules } from "../permissions/local-rules.js";
import type { PermissionAnswer, PermissionQuestion } from "../permissions/policy.js";
import { type PermissionRules, toolRule } from "../permissions/rules.js";

export const WEB_FETCH = "web_fetch";

export interface GateOptions {
  mode(): PermissionMode;
  /** The user's and the project's rules; "always" adds to them. */
  rules: PermissionRules;
  workspace: string;
  /** The real environment: where "always" remembers that the local settings file is approved. */
  env: NodeJS.ProcessEnv;
  /** Asks the person; absent where there is none (a headless run). */
  ask?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
}

export interface FetchGate {
  /** Null when `url` may be fetched (asking if need be), or the sentence refusing it. */
  admit(url: URL): Promise<string | null>;
  /** Whether `url`'s domain may be fetched without asking (a redirect's next host). */
  allowedQuietly(url: URL): boolean;
}

/** The rule that allows one domain, as "always" writes it. */
export const domainRule = (host: string) => `${WEB_FETCH}(domain:${host})`;

/** The first rule of `rules` naming `host` (or every domain). */
export function ruleForDomain(rules: readonly string[], host: string): string | undefined {
  return rules.find((rule) => {
    if (rule === toolRule(WEB_FETCH) || rule === WEB_FETCH) return true;
    const named = /^(?:web_fetch|WebFetch)\(domain:([^)]+)\)$/.exec(rule)?.[1]?.toLowerCase();
    if (named === undefined) return false;
    if (named === "*") return true;
    return named.startsWith("*.") ? host.endsWith(named.slice(1)) : host === named;
  });
}

export function createFetchGate(options: GateOptions): FetchGate {
  const { rules } = options;
  // Questions one at a time: calls that run together must not talk over each other.
  let questions: Promise<unknown> = Promise.resolve();

  function verdict(host: string): "allow" | "ask" | { deny: string } | "unlisted" {
    const denied = ruleForDomain(rules.deny, host);
    if (denied) return { deny: denied };
    if (ruleForDomain(rules.ask, host)) return "ask";
    if (ruleForDomain(rules.allow, host)) return "allow";
    return "unlisted";
  }

  async function askAbout(url: URL, host: string, asked: boolean): Promise<string | null> {
    const ask = options.ask;
    const rule = domainRule(host);
    if (!ask) {
      return `Permission needed: fetching from ${host} is not allowed by any rule, and there is no terminal to ask. To allow it, add "${rule}" to "permissions": {"allow": [...]} in your settings (~/.config/agentloop/settings.json).`;
    }
    const answer = await ask({
      tool: WEB_FETCH,
      action: { kind: "input", input: { url: url.href } },
      reason: asked
        ? `fetching from ${host} matches an ask rule`
        : `web_fetch would send a request to ${host}`,
      rules: [rule],
    });
    if (answer === "yes") return null;
    if (answer === "always") {
      rules.allow.push(rule);
      // The rule holds for this session even if the file cannot be written.
      await rememberAllowRules(options.workspace, [rule], options.env).catch(() => undefined);
      return null;
    }
    if (answer === "interrupted") return "Interrupted by the user when asked; nothing was fetched.";
    const said =
      typeof answer === "object" && answer.no.trim() ? ` They said: "${answer.no.trim()}"` : "";
    return `The user declined to fetch from ${host}.${said}`;
  }

  /** The answer when no one needs to be asked: null to fetch, a refusal, or undefined. */
  function withoutAsking(host: string): string | null | undefined {
    const judged = verdict(host);
    if (typeof judged === "object") {
      return `Permission denied: fetching from ${host} matches the deny rule "${judged.deny}".`;
    }
    if (judged === "allow" || (judged === "unlisted" && options.mode() === "yolo")) return null;
    return undefined;
  }

  return {
    async admit(url) {
      const host = hostOf(url);
      const quick = withoutAsking(host);
      if (quick !== undefined) return quick;
      // Judged again in turn: an "always" given meanwhile answers the waiting question.
      const turn = questions.then(
        () => withoutAsking(host) ?? askAbout(url, host, verdict(host) === "ask"),
      );
      questions = turn.catch(() => undefined);
      return turn;
    },
    allowedQuietly: (url) => withoutAsking(hostOf(url)) === null,
  };
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
