// Secrets recognised by their shape, in the spirit of gitleaks' rules
// (https://github.com/gitleaks/gitleaks, config/gitleaks.toml): the prefixes providers give their
// keys and tokens, private-key blocks, cloud access key ids, passwords written into URLs, JWTs.
// Redaction by value (secrets.ts) knows only the person's own environment; this knows a secret
// it was never given, such as a deploy token the person pasted into a prompt. Used wherever
// agentloop stores or re-sends text on its own: redaction of tool output, the memory (refused,
// and dropped from extraction), the session header.
//
// What it does not catch: a secret with no known prefix (a database password on its own, a
// random hex token, most keys of smaller services), a key split across lines or encoded
// (base64, URL-escaped), a key shorter than the lengths below (test keys such as
// "sk-ant-test-key"). docs/safety.md says so too.

export interface SecretShape {
  /** Short, lowercase: shown in `[redacted:NAME]`. */
  name: string;
  /** For a sentence: "an Anthropic API key". */
  described: string;
  /** Global; the whole match is the secret, unless group 1 is (a URL's password). */
  pattern: RegExp;
}

/** The first rule that matches a stretch of text names it: Anthropic before OpenAI's `sk-`. */
export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    name: "private-key",
    described: "a private key",
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g,
  },
  {
    name: "anthropic-key",
    described: "an Anthropic API key",
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
  },
  {
    name: "openai-key",
    described: "an OpenAI API key",
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g,
  },
  {
    name: "github-token",
    described: "a GitHub token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    name: "aws-access-key",
    described: "an AWS access key id",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  },
  { name: "google-key", described: "a Google API key", pattern: /\bAIza[A-Za-z0-9_-]{35}/g },
  {
    name: "slack-token",
    described: "a Slack token",
    pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g,
  },
  {
    name: "stripe-key",
    described: "a Stripe secret key",
    pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/g,
  },
  {
    name: "huggingface-token",
    described: "a Hugging Face token",
    pattern: /\bhf_[A-Za-z0-9]{34,}/g,
  },
  {
    name: "jwt",
    described: "a JSON web token",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    name: "url-password",
    described: "a password in an address",
    // scheme://user:PASSWORD@host: only the password is the secret.
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]+)@/gi,
  },
];

export interface FoundSecret {
  shape: SecretShape;
  start: number;
  end: number;
}

/** Every secret-shaped stretch of `text`, in order, none overlapping another. */
export function findSecrets(text: string): FoundSecret[] {
  const found: FoundSecret[] = [];
  for (const shape of SECRET_SHAPES) {
    for (const match of text.matchAll(shape.pattern)) {
      const secret = match[1] ?? match[0];
      const start = (match.index ?? 0) + match[0].lastIndexOf(secret);
      const end = start + secret.length;
      if (found.some((other) => start < other.end && other.start < end)) continue;
      found.push({ shape, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** What kinds of secret `text` holds, for a sentence: ["an Anthropic API key"]. */
export function secretKinds(text: string): string[] {
  return [...new Set(findSecrets(text).map((found) => found.shape.described))];
}

/** `text` with each secret-shaped stretch replaced by `[redacted:NAME]`. */
export function redactSecretShapes(text: string): string {
  const found = findSecrets(text);
  if (found.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const { shape, start, end } of found) {
    parts.push(text.slice(from, start), `[redacted:${shape.name}]`);
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join("");
}
