/**
 * `npm run check:model`: model-checks the shipped loop and tool-call machines
 * and prints the report. Exits 1 on any violation or when coverage is below
 * 100%, 2 on a bad argument or setting. `--help` says what it does and how to
 * widen the bound.
 */
import { agentLoopMachine } from "../machines/agent-loop.machine.js";
import { checkAgentLoop, formatReport, reportPasses } from "../src/model-check/index.js";

const HELP = `Usage: npm run check:model [-- --help]

Explores every path of the agent loop statechart (machines/agent-loop.machine.ts, with the
tool-batch and tool-call machines it runs) under an abstract world: model replies (text,
1..n tool calls, length-truncated, error, malformed final events, repaired tool-call ids; with
compaction a context overflow, a context too large and short length stops, and the summarizer), tool
outcomes, hooks, aborts, max turns, and "what is pending never settles" (then only the abort
and its grace period happen, and the run must end). It
checks invariants I1-I9 on every path, reports how many transitions of each machine some
path took, and exits 1 on a violation or when a transition is never taken.

The exploration is bounded; the report's "frontier states" are the states that would start
a turn past the bound, counted but not explored further. Widen the bound with:

  LOOPCHART_MODEL_TURNS=n   turns explored per run (default 2)
  LOOPCHART_MODEL_CALLS=n   most tool calls in one model response (default 3)

  e.g. LOOPCHART_MODEL_TURNS=3 LOOPCHART_MODEL_CALLS=3 npm run check:model   (slower)

From code: checkAgentLoop(machine, { turns, maxCalls }) from loopchart/model-check.
`;

function fail(message: string): never {
  process.stderr.write(`check:model: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (args.length > 0) fail(`unknown argument ${args[0]}; the bound is set with LOOPCHART_MODEL_TURNS / LOOPCHART_MODEL_CALLS (see --help).`);

const positive = (name: string): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) fail(`${name} must be a positive integer, got ${JSON.stringify(raw)}.`);
  return value;
};

const turns = positive("LOOPCHART_MODEL_TURNS");
const maxCalls = positive("LOOPCHART_MODEL_CALLS");
const report = checkAgentLoop(agentLoopMachine, { ...(turns ? { turns } : {}), ...(maxCalls ? { maxCalls } : {}) });
console.log(formatReport(report));
process.exitCode = reportPasses(report) ? 0 : 1;
