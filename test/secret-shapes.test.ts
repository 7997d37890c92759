// Secrets recognised by their shape: each rule finds its kind, ordinary text and short test keys
// are left alone, and redaction keeps the text around a secret. The keys are made here, piece by
// piece, so that no file of the repository holds a string shaped like a real one.

import { describe, expect, it } from "vitest";
import { findSecrets, redactSecretShapes, secretKinds } from "../src/permissions/secret-shapes.js";
import { createRedactor } from "../src/permissions/secrets.js";

const letters = (count: number) => "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7".repeat(8).slice(0, count);

const SHAPED: [string, string][] = [
  ["an Anthropic API key", `sk-ant-api03-${letters(40)}`],
  ["an OpenAI API key", `sk-proj-${letters(48)}`],
  ["an OpenAI API key", `sk-${letters(48)}`],
  ["a GitHub token", `ghp_${letters(36)}`],
  ["a GitHub token", `github_pat_${letters(30)}`],
  ["an AWS access key id", `AKIA${"ABCDEFGHIJ234567"}`],
  ["a Google API key", `AIza${letters(35)}`],
  ["a Slack token", `xoxb-${"1234567890-abcdef"}`],
  ["a Stripe secret key", `sk_live_${letters(24)}`],
  ["a Hugging Face token", `hf_${letters(34)}`],
  ["a JSON web token", `eyJ${letters(20)}.eyJ${letters(20)}.${letters(20)}`],
  [
    "a private key",
    ["-----BEGIN OPENSSH PRIVATE KEY-----", letters(60), "-----END OPENSSH PRIVATE KEY-----"].join(
      "\n",
    ),
  ],
];

describe("secrets by their shape", () => {
  it.each(SHAPED)("finds %s", (described, secret) => {
    expect(secretKinds(`The deploy token is ${secret} for now.`)).toEqual([described]);
  });

  it("finds the password in an address, and only the password", () => {
    const text = "postgres://app:hunter2hunter2@db.example:5432/app";
    expect(redactSecretShapes(text)).toBe(
      "postgres://app:[redacted:url-password]@db.example:5432/app",
    );
  });

  it("leaves ordinary text, test keys and look-alikes alone", () => {
    for (const text of [
      "The tests run with npm test; the key is in ANTHROPIC_API_KEY.",
      "ANTHROPIC_API_KEY=sk-ant-test-key",
      "scikit-learn is imported as sk-learn nowhere",
      "https://example.com/path@v2",
      "git@github.com:owner/repo.git",
    ]) {
      expect(findSecrets(text)).toEqual([]);
    }
  });

  it("redacts each secret where it stands, the text around it kept", () => {
    const key = `sk-ant-api03-${letters(40)}`;
    const token = `ghp_${letters(36)}`;
    expect(redactSecretShapes(`a ${key} b ${token} c`)).toBe(
      "a [redacted:anthropic-key] b [redacted:github-token] c",
    );
  });

  it("is part of the redaction of tool output, beside the person's own values", () => {
    const redact = createRedactor([{ name: "DB_PASSWORD", value: "correct-horse" }]);
    const key = `sk-ant-api03-${letters(40)}`;
    expect(redact(`correct-horse and ${key}`)).toBe(
      "[redacted:DB_PASSWORD] and [redacted:anthropic-key]",
    );
  });
});
