/** zod schemas of the trace lines (docs/TRACE_FORMAT.md); `parseTrace` validates every line with them. */
import { z } from "zod/v4";
import type { AgentEvent } from "../types.js";

const AGENT_EVENT_TYPES = [
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "approval_requested",
  "warning",
  "compaction_start",
  "compaction_end",
] as const;

/** Fails to compile when the loop gains an event type that traces do not accept yet. */
export const EVERY_AGENT_EVENT_TYPE_ACCEPTED: [Exclude<AgentEvent["type"], (typeof AGENT_EVENT_TYPES)[number]>] extends [never] ? true : never = true;

export const traceHeaderSchema = z.object({
  type: z.literal("trace_header"),
  version: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  startedAt: z.string(),
  model: z.string().optional(),
  cwd: z.string().optional(),
  argv: z.array(z.string()).optional(),
  tools: z.array(z.string()).optional(),
  maxTurns: z.number().optional(),
  session: z.object({ id: z.string(), store: z.string(), turnsBefore: z.number() }).optional(),
});

const message = z.looseObject({ role: z.string() });

export const traceEventSchema = z.object({
  t: z.number(),
  event: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("agent_start") }),
    z.looseObject({ type: z.literal("agent_end"), messages: z.array(message) }),
    z.looseObject({ type: z.literal("turn_start") }),
    z.looseObject({ type: z.literal("turn_end"), message, toolResults: z.array(message) }),
    z.looseObject({ type: z.literal("message_start"), message }),
    // From version 3 a delta line may leave out `message` (the reader rebuilds it).
    z.looseObject({ type: z.literal("message_update"), message: message.optional(), assistantMessageEvent: z.looseObject({ type: z.string() }) }),
    z.looseObject({ type: z.literal("message_end"), message }),
    z.looseObject({ type: z.literal("tool_execution_start"), toolCallId: z.string(), toolName: z.string() }),
    z.looseObject({ type: z.literal("tool_execution_update"), toolCallId: z.string(), toolName: z.string() }),
    z.looseObject({ type: z.literal("tool_execution_end"), toolCallId: z.string(), toolName: z.string(), isError: z.boolean() }),
    z.looseObject({ type: z.literal("approval_requested"), toolCallId: z.string(), toolName: z.string() }),
    z.looseObject({ type: z.literal("warning"), reason: z.string(), message: z.string() }),
    z.looseObject({ type: z.literal("compaction_start"), reason: z.string(), tokensBefore: z.number() }),
    z.looseObject({ type: z.literal("compaction_end"), reason: z.string(), compacted: z.boolean(), tokensBefore: z.number(), tokensAfter: z.number(), summary: z.string(), replaced: z.number() }),
  ]),
});

const actor = { actorId: z.string(), sessionId: z.string() };

export const traceInspectionSchema = z.object({
  t: z.number(),
  inspect: z.discriminatedUnion("type", [
    z.object({ type: z.literal("@xstate.actor"), ...actor, parentId: z.string().optional(), machineId: z.string().optional() }),
    z.object({ type: z.literal("@xstate.event"), ...actor, sourceId: z.string().optional(), event: z.unknown() }),
    z.object({
      type: z.literal("@xstate.snapshot"),
      ...actor,
      event: z.unknown(),
      snapshot: z.looseObject({ status: z.string(), value: z.unknown().optional(), context: z.unknown().optional() }),
    }),
    z.object({
      type: z.literal("@xstate.microstep"),
      ...actor,
      event: z.unknown(),
      value: z.unknown(),
      transitions: z.array(z.object({ eventType: z.string(), source: z.string(), target: z.array(z.string()) })),
    }),
  ]),
});

export const traceEndSchema = z.object({
  type: z.literal("trace_end"),
  t: z.number(),
  exitReason: z.enum(["completed", "terminated", "stopped", "maxTurns", "invalidCalls", "budget", "error", "aborted"]).optional(),
  exitCode: z.number().optional(),
  error: z.string().optional(),
});

export { AGENT_EVENT_TYPES };

/** The first issue of a failed parse as `path: message`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid line";
  const path = issue.path.length > 0 ? issue.path.join(".") : "(line)";
  return `${path}: ${issue.message}`;
}
