import { describe, expect, it } from "vitest";
import { createRedactor, isSecretName, secretValues } from "../src/permissions/secrets.js";

describe("secret values", () => {
  const env = {
    ANTHROPIC_API_KEY: "sk-ant-0123456789abcdef",
    GH_TOKEN: "ghp_abcdefghijklmnop",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG",
    DATABASE_URL: "postgres://app:s3cr%40tpass@db.internal:5432/app",
    DB_PASSWORD: "short",
    HOME: "/home/dev",
    TOKENIZERS_PARALLELISM: "false-but-long-enough",
    KEYBOARD_LAYOUT: "us-international",
  };

  it("counts names with a part such as KEY, TOKEN, SECRET or PASSWORD, not words containing them", () => {
    expect(["OPENAI_API_KEY", "GH_TOKEN", "db_password", "NPM_AUTHTOKEN"].every(isSecretName)).toBe(
      true,
    );
    expect(
      ["TOKENIZERS_PARALLELISM", "KEYBOARD_LAYOUT", "SSH_AUTH_SOCK", "PATH"].some(isSecretName),
    ).toBe(false);
  });

  it("lists values of 8 characters or more, and passwords inside URLs", () => {
    expect(secretValues(env).map((secret) => [secret.name, secret.value])).toEqual([
      ["ANTHROPIC_API_KEY", "sk-ant-0123456789abcdef"],
      ["AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG"],
      ["GH_TOKEN", "ghp_abcdefghijklmnop"],
      ["DATABASE_URL password", "s3cr%40tpass"],
      ["DATABASE_URL password", "s3cr@tpass"],
    ]);
  });

  it("replaces every occurrence with the variable's name", () => {
    const redact = createRedactor(secretValues(env));
    const output = "key=sk-ant-0123456789abcdef\nagain sk-ant-0123456789abcdef, db s3cr@tpass";
    expect(redact(output)).toBe(
      "key=[redacted:ANTHROPIC_API_KEY]\nagain [redacted:ANTHROPIC_API_KEY], db [redacted:DATABASE_URL password]",
    );
  });

  it("leaves text alone when there are no secrets", () => {
    expect(createRedactor([])("nothing to hide")).toBe("nothing to hide");
  });
});
