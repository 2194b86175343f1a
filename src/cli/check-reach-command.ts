import { agentLoopMachine } from "../../machines/index.js";
import { canReach, type ReachTarget } from "../model-check/can-reach.js";
import type { ExitReason } from "../types.js";
import type { CliIo } from "./cli-io.js";
import { EXIT_CODES } from "./exit-codes.js";
import { parseOptions, parsePositiveInt } from "./parse-options.js";
import { UsageError } from "./usage-error.js";

const EXIT_REASONS: readonly ExitReason[] = ["completed", "terminated", "stopped", "maxTurns", "invalidCalls", "budget", "error", "aborted"];

/** `loopchart check --help`. */
export const CHECK_HELP = `Usage: loopchart check reach [options] <statePath>
       loopchart check reach --exit <reason>

Asks the chart whether a run can reach a state, and prints a witness: the shortest
sequence of abstract world events (the model answering, a tool settling, an abort, a
human's decision, ...) from the start to it. The state path is written from a machine's
root or as its last part, and may be a state of the loop, a tool batch or a tool call
(e.g. awaitingApproval, betweenTurns.pollingSteering). --exit asks for a run that ends
with that exit reason instead.

Options:
      --exit <reason>      A run that ends so: ${EXIT_REASONS.join(", ")}.
      --turns <n>          Turns a run may take. Default 2.
      --max-depth <n>      Most world events on a witness. Default 60.
  -h, --help               Show this help.

Exit codes: 0 reachable (the witness is printed, one event a line), 1 not reachable within
the bounds, 2 usage.

Examples:
  loopchart check reach awaitingApproval
  loopchart check reach --exit maxTurns
`;

/**
 * `loopchart check reach <statePath> | --exit <reason>`: `canReach` on the shipped loop
 * machine. Resolves to 0 with the witness on stdout, 1 when unreachable within the bounds.
 */
export async function checkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { exit: { type: "string" }, turns: { type: "string" }, "max-depth": { type: "string" }, help: { type: "boolean", short: "h" } },
    "loopchart check --help",
  );
  if (values.help === true) {
    io.stdout.write(CHECK_HELP);
    return EXIT_CODES.ok;
  }
  const [question, ...rest] = positionals;
  if (question !== "reach") throw new UsageError(`loopchart check expects "reach", e.g. loopchart check reach awaitingApproval. Run "loopchart check --help".`);
  const exit = values.exit;
  if (typeof exit === "string" && !(EXIT_REASONS as readonly string[]).includes(exit)) {
    throw new UsageError(`--exit expects one of ${EXIT_REASONS.join(", ")}, got "${exit}".`);
  }
  if ((typeof exit === "string") === (rest.length === 1) || rest.length > 1) {
    throw new UsageError('loopchart check reach expects one state path or --exit <reason>, e.g. loopchart check reach awaitingApproval');
  }
  const target: ReachTarget =
    typeof exit === "string"
      ? (state) => state.loop.status === "done" && (state.loop.output as { exitReason?: string } | undefined)?.exitReason === exit
      : (rest[0] as string);
  const described = typeof exit === "string" ? `a run that ends ${exit}` : `state ${rest[0] as string}`;
  const answer = canReach(agentLoopMachine, target, {
    ...(typeof values.turns === "string" ? { turns: parsePositiveInt("--turns", values.turns) } : {}),
    ...(typeof values["max-depth"] === "string" ? { maxDepth: parsePositiveInt("--max-depth", values["max-depth"]) } : {}),
  });
  if (!answer.reachable) {
    const bound = answer.bounded ? " within the bounds (raise --turns or --max-depth)" : "";
    io.stdout.write(`${described} is not reachable${bound}: ${answer.states} states searched.\n`);
    return EXIT_CODES.error;
  }
  io.stdout.write(`${described} is reachable in ${answer.path.length} steps (configuration: ${answer.configuration}):\n`);
  answer.path.forEach((event, index) => io.stdout.write(`  ${index + 1}. ${event}\n`));
  return EXIT_CODES.ok;
}
