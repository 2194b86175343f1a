/**
 * Chooses which scripted response answers a request (see the selection rules in
 * `script-schema.ts`).
 */
import type { Context, ToolResultMessage } from "../llm-types.js";
import type { Script, ScriptedResponse, ScriptedWhen } from "./script-schema.js";

/** A response picked for a request, with its position in the script. */
export interface PickedResponse {
  response: ScriptedResponse;
  index: number;
}

/** Tracks which responses of one script have played. One per scripted model. */
export interface ScriptPlayer {
  /**
   * Picks and marks as played the response for a request with `context`, or
   * returns an explanation when none is left.
   */
  next(context: Context): PickedResponse | { exhausted: string };
}

/** Creates a player over `script`'s responses; nothing has played yet. */
export function createScriptPlayer(script: Script): ScriptPlayer {
  const played = new Set<number>();
  return {
    next(context) {
      const results = latestToolResults(context);
      const responses = script.responses;
      let pick = responses.findIndex((r, i) => !played.has(i) && r.when !== undefined && matchesWhen(r.when, results));
      if (pick === -1) pick = responses.findIndex((r, i) => !played.has(i) && r.when === undefined);
      if (pick === -1) {
        const name = script.name ?? "script";
        const waiting = responses.length - played.size;
        return {
          exhausted:
            waiting === 0
              ? `Scripted model "${name}" has no response left: all ${responses.length} responses were played.`
              : `Scripted model "${name}" has no response for this request: the ${waiting} unplayed responses all have \`when\` matchers that do not match the latest tool results.`,
        };
      }
      played.add(pick);
      return { response: responses[pick] as ScriptedResponse, index: pick };
    },
  };
}

/** The tool results at the end of the context, after the last assistant message. */
export function latestToolResults(context: Context): ToolResultMessage[] {
  const results: ToolResultMessage[] = [];
  for (let i = context.messages.length - 1; i >= 0; i -= 1) {
    const message = context.messages[i];
    if (message?.role !== "toolResult") break;
    results.unshift(message);
  }
  return results;
}

/** Whether at least one of `results` satisfies every field `when` gives. */
export function matchesWhen(when: ScriptedWhen, results: readonly ToolResultMessage[]): boolean {
  return results.some((result) => {
    if (when.isError !== undefined && result.isError !== when.isError) return false;
    if (when.toolName !== undefined && result.toolName !== when.toolName) return false;
    if (when.toolResultContains !== undefined) {
      const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
      if (!text.includes(when.toolResultContains)) return false;
    }
    return true;
  });
}
