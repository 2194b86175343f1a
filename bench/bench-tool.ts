/**
 * The trivial tool every scripted call targets: validates `{ n, note }` and
 * returns a small text result, so the engines' own overhead dominates.
 */
import { Type } from "typebox";
import type { AgentTool } from "../src/types.js";
import { SCRIPTED_TOOL_NAME } from "./scripted-stream.js";

const echoParameters = Type.Object({
  n: Type.Number(),
  note: Type.String(),
});

/** Returns `ok N` at once. Never throws. */
export const echoTool: AgentTool<typeof echoParameters, { n: number }> = {
  name: SCRIPTED_TOOL_NAME,
  label: "Echo",
  description: "Returns ok and the number it was given.",
  parameters: echoParameters,
  execute: async (_toolCallId, params) => ({
    content: [{ type: "text", text: `ok ${params.n}` }],
    details: { n: params.n },
  }),
};
