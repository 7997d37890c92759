import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { type ProviderChoice, resolveProvider } from "../src/providers/presets.js";

const resolve = (choice: Partial<ProviderChoice>) => resolveProvider({ env: {}, ...choice });

describe("choosing the model server", () => {
  it("runs a local Ollama model with nothing but --provider and --model", () => {
    expect(resolve({ provider: "ollama", model: "qwen2.5-coder" })).toEqual({
      preset: "ollama",
      protocol: "openai",
      baseURL: "http://localhost:11434/v1",
      apiKey: null,
      apiKeyEnv: null,
      model: "qwen2.5-coder",
      api: "chat",
    });
  });

  it.each(["ollama", "lmstudio", "vllm", "llamacpp", "openrouter", "deepseek"])(
    "speaks Chat Completions to %s, and Responses when --api says so",
    (provider) => {
      const env = { OPENROUTER_API_KEY: "k", DEEPSEEK_API_KEY: "k" };
      expect(resolve({ provider, model: "m", env })).toMatchObject({ api: "chat" });
      expect(resolve({ provider, model: "m", env, api: "responses" })).toMatchObject({
        api: "responses",
      });
    },
  );

  it("speaks Responses to OpenAI, and Chat Completions when --api says so", () => {
    const env = { OPENAI_API_KEY: "sk-o" };
    expect(resolve({ provider: "openai", env })).toMatchObject({ api: "responses" });
    expect(resolve({ provider: "openai", env, api: "chat" })).toMatchObject({ api: "chat" });
  });

  it("refuses --api for a provider that is not OpenAI's protocol", () => {
    const env = { ANTHROPIC_API_KEY: "sk-a" };
    expect(resolve({ provider: "anthropic", env, api: "chat" })).toEqual(
      new ConfigError(
        "--api chooses between OpenAI's protocols and does not apply to --provider anthropic.",
      ),
    );
    expect(resolve({ provider: "local", api: "responses" })).toBeInstanceOf(ConfigError);
  });

  it.each([
    ["lmstudio", "http://localhost:1234/v1"],
    ["vllm", "http://localhost:8000/v1"],
    ["llamacpp", "http://localhost:8080/v1"],
  ])("knows where %s listens and that it needs no key", (provider, baseURL) => {
    expect(resolve({ provider, model: "m" })).toMatchObject({ baseURL, apiKey: null });
  });

  it("asks for --model when a local preset has no default", () => {
    expect(resolve({ provider: "vllm" })).toEqual(
      new ConfigError(
        "The vllm provider needs a model: pass --model NAME (the name the server lists for it).",
      ),
    );
  });

  it("uses OPENAI_API_KEY and OpenAI's address and default model for --provider openai", () => {
    const env = { OPENAI_API_KEY: "sk-o" };
    expect(resolve({ provider: "openai", env })).toEqual({
      preset: "openai",
      protocol: "openai",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-o",
      apiKeyEnv: "OPENAI_API_KEY",
      model: "gpt-6.2-sol",
      api: "responses",
    });
  });

  it("lets OPENAI_BASE_URL move the openai preset, and --base-url move it again", () => {
    const env = { OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: "https://proxy.example/v1" };
    expect(resolve({ provider: "openai", env })).toMatchObject({
      baseURL: "https://proxy.example/v1",
    });
    const flag = "https://other.example/v1";
    expect(resolve({ provider: "openai", baseURL: flag, env })).toMatchObject({ baseURL: flag });
  });

  it("needs a key for a hosted preset, naming the variable", () => {
    expect(resolve({ provider: "openai" })).toEqual(
      new ConfigError("The openai provider needs an API key: set OPENAI_API_KEY."),
    );
    expect(resolve({ provider: "deepseek", env: { OPENAI_API_KEY: "sk-o" } })).toEqual(
      new ConfigError("The deepseek provider needs an API key: set DEEPSEEK_API_KEY."),
    );
  });

  it("needs no key when --base-url points a hosted preset at this machine", () => {
    const baseURL = "http://127.0.0.1:8000/v1";
    expect(resolve({ provider: "openai", baseURL, model: "served" })).toMatchObject({
      protocol: "openai",
      baseURL,
      apiKey: null,
    });
  });

  it("needs ANTHROPIC_API_KEY even for an Anthropic server on this machine", () => {
    const baseURL = "http://127.0.0.1:8080";
    expect(resolve({ provider: "anthropic", baseURL })).toEqual(
      new ConfigError("The anthropic provider needs an API key: set ANTHROPIC_API_KEY."),
    );
  });

  it("honours the seed's ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and MODEL_ID", () => {
    const env = {
      ANTHROPIC_API_KEY: "sk-a",
      ANTHROPIC_BASE_URL: "https://gateway.example",
      MODEL_ID: "claude-haiku-4-5",
    };
    expect(resolve({ env })).toEqual({
      preset: "anthropic",
      protocol: "anthropic",
      baseURL: "https://gateway.example",
      apiKey: "sk-a",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      model: "claude-haiku-4-5",
    });
    expect(resolve({ env, model: "claude-opus-4-5" })).toMatchObject({ model: "claude-opus-4-5" });
  });

  it("does not apply MODEL_ID to other presets", () => {
    const env = { MODEL_ID: "claude-haiku-4-5", DEEPSEEK_API_KEY: "sk-d" };
    expect(resolve({ provider: "deepseek", env })).toMatchObject({ model: "deepseek-flash" });
  });

  it("picks the provider whose key is set when no --provider is given, Anthropic first", () => {
    const both = { ANTHROPIC_API_KEY: "sk-a", OPENAI_API_KEY: "sk-o" };
    expect(resolve({ env: both })).toMatchObject({ preset: "anthropic" });
    expect(resolve({ env: { OPENAI_API_KEY: "sk-o" } })).toMatchObject({ preset: "openai" });
    expect(resolve({ env: { OPENROUTER_API_KEY: "sk-r" }, model: "x/y" })).toMatchObject({
      preset: "openrouter",
      baseURL: "https://openrouter.ai/api/v1",
    });
  });

  it("treats an empty variable as unset", () => {
    expect(resolve({ env: { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "sk-o" } })).toMatchObject({
      preset: "openai",
    });
  });

  it("lists the ways to configure a model in one sentence when nothing is configured", () => {
    const error = resolve({});
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      "No model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, run a model in agentloop itself with --provider local (it downloads Qwen3.5-4B, 2.7 GB, on first use), or pass --provider with a local server (ollama, lmstudio, vllm, llamacpp) and --model, for example --provider ollama --model qwen2.5-coder.",
    );
  });

  it("names the known providers when --provider is not one of them", () => {
    expect(resolve({ provider: "olama" })).toEqual(
      new ConfigError(
        'Unknown provider "olama": choose one of anthropic, openai, openrouter, deepseek, ollama, lmstudio, vllm, llamacpp, local.',
      ),
    );
  });

  it("runs a model in process with --provider local: no key, the default model unless --model", () => {
    expect(resolve({ provider: "local" })).toEqual({
      preset: "local",
      protocol: "local",
      baseURL: "",
      apiKey: null,
      apiKeyEnv: null,
      model: "hf:unsloth/Qwen3.5-4B-GGUF/Qwen3.5-4B-Q4_K_M.gguf",
    });
    expect(resolve({ provider: "local", model: "./my.gguf" })).toMatchObject({
      model: "./my.gguf",
    });
    expect(resolve({ provider: "local", baseURL: "http://localhost:1/v1" })).toEqual(
      new ConfigError(
        "--base-url does not apply to --provider local, which runs the model in this process.",
      ),
    );
  });

  it("rejects a base URL that is not a URL", () => {
    expect(resolve({ provider: "ollama", model: "m", baseURL: "localhost:11434" })).toEqual(
      new ConfigError(
        'The base URL "localhost:11434" is not a URL: write it like http://localhost:11434/v1.',
      ),
    );
  });
});
