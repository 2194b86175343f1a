/**
 * `npm run check:model`: model-checks the shipped loop and tool-call machines
 * and prints the report. Exits 1 on any violation or when coverage is below
 * 100%. `LOOPCHART_MODEL_TURNS` and `LOOPCHART_MODEL_CALLS` widen the bound.
 */
import { agentLoopMachine } from "../machines/agent-loop.machine.js";
import { checkAgentLoop, formatReport, reportPasses } from "../src/model-check/index.js";

const positive = (name: string): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
};

const turns = positive("LOOPCHART_MODEL_TURNS");
const maxCalls = positive("LOOPCHART_MODEL_CALLS");
const report = checkAgentLoop(agentLoopMachine, { ...(turns ? { turns } : {}), ...(maxCalls ? { maxCalls } : {}) });
console.log(formatReport(report));
process.exitCode = reportPasses(report) ? 0 : 1;
