// Secrets stay home: the values of secret environment variables, and text shaped like a secret
// (secret-shapes.ts), are replaced in tool output before it reaches the model or the session file.
//
// A secret is the value (8 characters or more) of a variable whose name has a part (split at
// `_`) such as KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS, PAT, CREDENTIAL(S), APIKEY or
// PRIVATE (ANTHROPIC_API_KEY, GH_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD), and the password
// in any variable holding a URL with one (postgres://user:password@host).

import { redactSecretShapes } from "./secret-shapes.js";

export interface SecretValue {
  name: string;
  value: string;
}

const SECRET_NAME_PARTS = new Set([
  "KEY",
  "APIKEY",
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PAT",
  "CREDENTIAL",
  "CREDENTIALS",
  "PRIVATE",
  "AUTHTOKEN",
  "ACCESSTOKEN",
]);

const MIN_SECRET_LENGTH = 8;

export function isSecretName(name: string): boolean {
  return name
    .toUpperCase()
    .split(/[_\W]+/)
    .some((part) => SECRET_NAME_PARTS.has(part));
}

/** The secret values in an environment, longest first (so a secret containing another is
 * replaced whole). */
export function secretValues(env: Record<string, string | undefined>): SecretValue[] {
  const found: SecretValue[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isSecretName(name)) found.push({ name, value });
    for (const password of urlPasswords(value))
      found.push({ name: `${name} password`, value: password });
  }
  const unique = new Map<string, SecretValue>();
  for (const secret of found) {
    if (secret.value.length >= MIN_SECRET_LENGTH && !unique.has(secret.value)) {
      unique.set(secret.value, secret);
    }
  }
  return [...unique.values()].sort((a, b) => b.value.length - a.value.length);
}

/** The password of a URL with credentials, as written and percent-decoded. */
function urlPasswords(value: string): string[] {
  const written = /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@\s/]+)@/i.exec(value)?.[1];
  if (!written) return [];
  try {
    return [written, decodeURIComponent(written)];
  } catch {
    return [written];
  }
}

/**
 * Replaces every secret value in a text with `[redacted:NAME]`, then whatever else is shaped
 * like a secret with `[redacted:KIND]` (an Anthropic key pasted into a file, a private key).
 */
export function createRedactor(secrets: SecretValue[]): (text: string) => string {
  return (text) => {
    let result = text;
    for (const { name, value } of secrets) {
      if (result.includes(value)) result = result.split(value).join(`[redacted:${name}]`);
    }
    return redactSecretShapes(result);
  };
}
