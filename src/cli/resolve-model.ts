import { isAbsolute, resolve } from "node:path";
import type { Model, StreamFn } from "../types.js";
import type { ProviderModelOptions } from "../providers/index.js";
// The scripted model is imported from its own modules: the barrel would load the AI SDK too.
import { loadScript } from "../providers/load-script.js";
import { ScriptError } from "../providers/script-error.js";
import { createScriptedModel } from "../providers/scripted.js";
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, MODEL_PROVIDERS, type ModelProvider } from "./cli-defaults.js";
import { UsageError } from "./usage-error.js";

/** What the CLI runs against. */
export interface ResolvedModel {
  /** `<provider>/<id>`, as recorded in the trace header. */
  spec: string;
  provider: ModelProvider;
  model: Model;
  streamFn: StreamFn;
  /** The key in use, so it can be redacted (never printed). */
  apiKey?: string;
}

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  /** `--model`, if given. */
  spec?: string;
  /** `--base-url`, if given. */
  baseUrl?: string;
  env: NodeJS.ProcessEnv;
  /** Directory `scripted/<path.json>` is resolved against. */
  cwd: string;
  /** For scripted models: pause before each streamed chunk, in ms. Default 0. */
  scriptedDelayMs?: number;
}

/** The message shown when there is neither `--model` nor an API key. */
export const NO_MODEL_MESSAGE = [
  "No model to run: --model was not given and neither OPENAI_API_KEY nor ANTHROPIC_API_KEY is set.",
  "Do one of these:",
  "  export OPENAI_API_KEY=sk-...          then: loopchart run \"<prompt>\"   (or --model openai/<id>)",
  "  export ANTHROPIC_API_KEY=sk-ant-...   then: loopchart run --model anthropic/<id> \"<prompt>\"",
  "  a local OpenAI-compatible server (Ollama, llama.cpp, vLLM):",
  "    loopchart run --model openai-compatible/<id> --base-url http://127.0.0.1:11434/v1 \"<prompt>\"",
  "    (or set OPENAI_BASE_URL instead of --base-url)",
  "  no key, offline:  loopchart run --model scripted/demo \"<prompt>\"   or   loopchart demo",
].join("\n");

/**
 * Resolves `--model` (or the default chosen from the API keys in `env`) into a model and
 * stream function. Throws {@link UsageError} when no model can be chosen, the provider is
 * unknown, a required key or base URL is missing, or a script does not load (the
 * message names the script's bad entry).
 */
export async function resolveModel({ spec, baseUrl, env, cwd, scriptedDelayMs }: ResolveModelOptions): Promise<ResolvedModel> {
  const effective = spec ?? defaultSpec(env);
  const slash = effective.indexOf("/");
  const provider = effective.slice(0, Math.max(0, slash));
  const id = slash < 0 ? "" : effective.slice(slash + 1);
  if (slash < 0 || !isProvider(provider) || id === "") {
    throw new UsageError(
      `--model expects <provider>/<id> with provider one of ${MODEL_PROVIDERS.join(", ")}, ` +
        `e.g. scripted/demo, openai/${DEFAULT_OPENAI_MODEL}, anthropic/${DEFAULT_ANTHROPIC_MODEL}, openai-compatible/llama3.2; got "${effective}".`,
    );
  }

  switch (provider) {
    case "scripted": {
      const source = id === "demo" || isAbsolute(id) ? id : resolve(cwd, id);
      try {
        const script = await loadScript(id === "demo" ? id : source);
        const { model, streamFn } = createScriptedModel(script, { delayMs: scriptedDelayMs });
        return { spec: effective, provider, model, streamFn };
      } catch (error) {
        if (error instanceof ScriptError) throw new UsageError(error.message);
        throw error;
      }
    }
    case "openai":
    case "anthropic": {
      const variable = provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
      const apiKey = env[variable];
      if (!apiKey) {
        throw new UsageError(`--model ${effective} needs ${variable} to be set. Without a key, try --model scripted/demo.`);
      }
      const baseURL = baseUrl ?? (provider === "openai" ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL) ?? undefined;
      const { model, streamFn } = await providerModel({ provider, modelId: id, apiKey, baseURL: baseURL || undefined });
      return { spec: effective, provider, model, streamFn, apiKey };
    }
    case "openai-compatible": {
      const baseURL = baseUrl ?? env.OPENAI_BASE_URL;
      if (!baseURL) {
        throw new UsageError(
          `--model ${effective} needs the server's URL: --base-url http://127.0.0.1:11434/v1 (or set OPENAI_BASE_URL).`,
        );
      }
      checkUrl(baseURL);
      const apiKey = env.OPENAI_API_KEY || undefined;
      const { model, streamFn } = await providerModel({ provider, modelId: id, apiKey, baseURL });
      return { spec: effective, provider, model, streamFn, apiKey };
    }
    default: {
      const unknown: never = provider;
      throw new UsageError(`Unknown provider ${String(unknown)}`);
    }
  }
}

/** `createProviderModel` (loaded on first use: it brings the AI SDK) with its configuration errors turned into usage errors. */
async function providerModel(options: ProviderModelOptions): Promise<{ model: Model; streamFn: StreamFn }> {
  const { createProviderModel, ProviderConfigError } = await import("../providers/index.js");
  try {
    return createProviderModel(options);
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function defaultSpec(env: NodeJS.ProcessEnv): string {
  if (env.OPENAI_API_KEY) return `openai/${DEFAULT_OPENAI_MODEL}`;
  if (env.ANTHROPIC_API_KEY) return `anthropic/${DEFAULT_ANTHROPIC_MODEL}`;
  throw new UsageError(NO_MODEL_MESSAGE);
}

function isProvider(value: string): value is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(value);
}

function checkUrl(value: string): void {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`--base-url expects an http(s) URL such as http://127.0.0.1:11434/v1; got "${value}".`);
}
