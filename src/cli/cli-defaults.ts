/** Providers `--model <provider>/<id>` accepts. */
export const MODEL_PROVIDERS = ["scripted", "openai", "anthropic", "openai-compatible"] as const;
/** One of {@link MODEL_PROVIDERS}. */
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Model used when no `--model` is given and `OPENAI_API_KEY` is set. */
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
/** Model used when no `--model` is given, `OPENAI_API_KEY` is unset and `ANTHROPIC_API_KEY` is set. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";

/** Tools `--tools` accepts. */
export const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;
/** The tools offered when neither `--tools` nor `--all-tools` is given. */
export const DEFAULT_TOOL_NAMES = ["read", "bash", "edit", "write"] as const;
