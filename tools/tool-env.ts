/**
 * The environment a command tool (`bash`) runs with: the process's, without the
 * provider API keys the run uses, so a model's command cannot read or print them
 * (`env`, `echo $OPENAI_API_KEY`) into a tool result the model, the trace and the
 * session see. A user who needs one in their commands keeps it by name.
 */

/** Variables never passed to commands unless kept: every `*_API_KEY` (OPENAI_API_KEY, ANTHROPIC_API_KEY, …). */
export const PROVIDER_KEY_VARIABLE = /(^|_)API_KEY$/;

/**
 * `env` without the variables {@link PROVIDER_KEY_VARIABLE} matches, except those named
 * in `keep`. Returns a new object; `env` is not changed.
 *
 * @example toolEnvironment(process.env, ["OPENAI_API_KEY"]) // keeps that one key
 */
export function toolEnvironment(env: NodeJS.ProcessEnv, keep: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (PROVIDER_KEY_VARIABLE.test(name) && !keep.includes(name)) continue;
    out[name] = value;
  }
  return out;
}
