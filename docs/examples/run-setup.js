/**
 * A `--setup` module for `loopchart worker` (docs/DBOS.md): what a worker runs for each
 * queued run. Copy it into your project and change what you need.
 *
 *   npm install loopchart zod @dbos-inc/dbos-sdk@5
 *   OPENAI_API_KEY=… LOOPCHART_MODEL=openai/gpt-4.1-mini LOOPCHART_WORKSPACE=/srv/checkout \
 *     npx loopchart worker --database-url postgres://…/loopchart --setup ./run-setup.js
 *   npx loopchart run --remote --database-url postgres://…/loopchart "Fix the failing test"
 *
 * A worker calls `createRun(input)` in every execution of a run, a recovery on another
 * machine included, so it must build the same model, tools and config from the same
 * `input` (the prompt, the system prompt, earlier messages and the `--meta` strings): read
 * only `input` and the worker's environment here, never a clock or a random number.
 *
 * The worker's environment:
 * - `LOOPCHART_MODEL`: `<provider>/<model id>` with provider `openai`, `anthropic` or
 *   `openai-compatible` (default `openai/gpt-4.1-mini`); the API key comes from
 *   `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`.
 * - `LOOPCHART_BASE_URL`: the API root for `openai-compatible` (Ollama:
 *   `http://127.0.0.1:11434/v1`), or another root for the others.
 * - `LOOPCHART_WORKSPACE`: the directory the coding tools work in (default: the worker's
 *   working directory); a run may name a subdirectory of it with `--meta dir=<subdir>`.
 * - `LOOPCHART_MAX_TURNS`: the turn limit (default 30).
 */
import { isAbsolute, relative, resolve } from "node:path";
import { defaultConvertToLlm } from "loopchart";
import { createProviderModel } from "loopchart/providers";
import { createCodingTools } from "loopchart/tools";

/** Turns a run may take when `LOOPCHART_MAX_TURNS` is not set. */
const DEFAULT_MAX_TURNS = 30;

/**
 * Builds one run: the model from `LOOPCHART_MODEL`, read/bash/edit/write confined to the
 * workspace, and the loop's config.
 *
 * @param {import("loopchart/dbos").DbosRunInput} input what `run --remote` / `enqueue` queued
 * @returns {import("loopchart/dbos").DbosRunSetup}
 */
export function createRun(input) {
  const spec = process.env.LOOPCHART_MODEL ?? "openai/gpt-4.1-mini";
  const slash = spec.indexOf("/");
  if (slash <= 0) throw new Error(`LOOPCHART_MODEL must be <provider>/<model id>, got "${spec}"`);
  const provider = /** @type {"openai" | "anthropic" | "openai-compatible"} */ (spec.slice(0, slash));
  const baseURL = process.env.LOOPCHART_BASE_URL;
  const { model, streamFn } = createProviderModel({ provider, modelId: spec.slice(slash + 1), ...(baseURL ? { baseURL } : {}) });

  const workspace = resolve(process.env.LOOPCHART_WORKSPACE ?? process.cwd());
  const cwd = resolve(workspace, input.meta?.dir ?? ".");
  const inside = relative(workspace, cwd);
  if (inside.startsWith("..") || isAbsolute(inside)) throw new Error(`--meta dir=${input.meta?.dir} is outside ${workspace}`);

  const maxTurns = Number(process.env.LOOPCHART_MAX_TURNS ?? DEFAULT_MAX_TURNS);
  return {
    config: { model, convertToLlm: defaultConvertToLlm, maxTurns },
    tools: createCodingTools(cwd),
    streamFn,
  };
}
