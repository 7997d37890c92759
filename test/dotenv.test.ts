import { describe, expect, it } from "vitest";
import { parseDotenv } from "../src/core/dotenv.js";

describe(".env files", () => {
  it("reads plain, exported, quoted and commented values", () => {
    const values = parseDotenv(
      [
        "# a comment",
        "ANTHROPIC_API_KEY=sk-ant-123",
        "export MODEL_ID=claude-sonnet-4-5",
        'ANTHROPIC_BASE_URL="http://localhost:8080"',
        "SINGLE='has # hash'",
        "TRAILING=value # explained",
        "not a line",
      ].join("\n"),
    );
    expect(values).toEqual({
      ANTHROPIC_API_KEY: "sk-ant-123",
      MODEL_ID: "claude-sonnet-4-5",
      ANTHROPIC_BASE_URL: "http://localhost:8080",
      SINGLE: "has # hash",
      TRAILING: "value",
    });
  });
});
