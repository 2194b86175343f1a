/**
 * Test helper: drains an assistant event stream.
 */
import type { AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream } from "../../src/llm-types.js";

/** The events of a stream, in order, and its final message. */
export interface CollectedStream {
  events: AssistantMessageEvent[];
  types: AssistantMessageEvent["type"][];
  result: AssistantMessage;
}

/** Iterates `stream` to its end and awaits `result()`. */
export async function collectStream(stream: AssistantMessageEventStream | Promise<AssistantMessageEventStream>): Promise<CollectedStream> {
  const resolved = await stream;
  const events: AssistantMessageEvent[] = [];
  for await (const event of resolved) events.push(event);
  return { events, types: events.map((event) => event.type), result: await resolved.result() };
}

/** Concatenates the `toolcall_delta` pieces of the block at `contentIndex`. */
export function joinToolCallDeltas(events: readonly AssistantMessageEvent[], contentIndex: number): string {
  return events
    .map((event) => (event.type === "toolcall_delta" && event.contentIndex === contentIndex ? event.delta : ""))
    .join("");
}
