// The models `--provider local` knows by a short name, so that `--model qwen3-4b` is enough.
// The first is the default; why it was chosen, and its figures, are in docs/local-model.md.

export const LOCAL_MODEL_NAMES = {
  /**
   * Qwen3.5-4B (March 2026, Apache-2.0) at 4 bits, about 2.7 GB: node-llama-cpp's own
   * recommendation for it (`hf:unsloth/Qwen3.5-4B-GGUF:Q4_K_M`, src/cli/recommendedModels.ts).
   */
  "qwen3.5-4b": "hf:unsloth/Qwen3.5-4B-GGUF/Qwen3.5-4B-Q4_K_M.gguf",
  /** Qwen3-4B (April 2025, Apache-2.0) at 4 bits, 2.5 GB: the default before Qwen3.5-4B. */
  "qwen3-4b": "hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf",
} as const;

/** The model --provider local runs when --model is not given. */
export const DEFAULT_LOCAL_MODEL = LOCAL_MODEL_NAMES["qwen3.5-4b"];

/** The reference a short name stands for, or undefined when it is no name of ours. */
export function localModelNamed(name: string): string | undefined {
  const names: Readonly<Record<string, string>> = LOCAL_MODEL_NAMES;
  return Object.hasOwn(names, name.toLowerCase()) ? names[name.toLowerCase()] : undefined;
}
