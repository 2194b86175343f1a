/**
 * How to tell the user to call the CLI again, so that the command printed in a hint
 * (`… replay <trace>`) works where they are.
 */
import { basename, relative } from "node:path";

/** What {@link invokedAs} looks at. */
export interface InvocationFacts {
  /** `process.argv[1]`: the script node was started with. */
  script: string | undefined;
  /** The process environment: npm marks `npx`/`npm exec` runs in it. */
  env: NodeJS.ProcessEnv;
  /** The working directory, to print the script's path relative to it. */
  cwd: string;
}

/** The name of the installed command (package.json `bin`). */
export const COMMAND_NAME = "loopchart";

/**
 * `npx loopchart` when run through `npx`/`npm exec` (the bin is not on PATH there),
 * `loopchart` when run through the bin link, else `node <script>` (or `npx tsx <script>`
 * for the TypeScript entry) with the path relative to `cwd`. Never throws.
 */
export function invokedAs({ script, env, cwd }: InvocationFacts): string {
  const throughNpx = env.npm_command === "exec" || env.npm_lifecycle_event === "npx";
  if (script === undefined || basename(script) === COMMAND_NAME) return throughNpx ? `npx ${COMMAND_NAME}` : COMMAND_NAME;
  const path = relative(cwd, script) || script;
  return script.endsWith(".ts") ? `npx tsx ${path}` : `node ${path}`;
}
