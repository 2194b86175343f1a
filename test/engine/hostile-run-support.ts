/**
 * What the hostile-run tests share: waits bounded by a timer outside the engine (a
 * run that does not end fails the test as a hang), draining a run, and hostile
 * tools and streams.
 */
import { Type } from "typebox";
import { agentLoop } from "../../src/index.js";
import { EventStream } from "../../src/event-stream.js";
import type { AgentContext, AgentEvent, AgentMessage, AgentTool, AssistantMessage, AssistantMessageEvent, StreamFn, ToolResultMessage } from "../../src/types.js";

/** How long a run may take before it counts as hung. Runs take milliseconds; this only catches "never". */
export const HANG_BOUND_MS = 5_000;

/** Rejects with "the run did not end" unless `work` settles first. The timer is outside the engine. */
export async function bounded<T>(work: Promise<T>, what = "the run"): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${HANG_BOUND_MS} ms (a hang)`)), HANG_BOUND_MS);
  });
  try {
    return await Promise.race([work, hung]);
  } finally {
    clearTimeout(timer);
  }
}

export type AgentStream = ReturnType<typeof agentLoop>;

/** Every event of a run and its result, bounded. */
export async function drain(stream: AgentStream): Promise<{ events: AgentEvent[]; result: AgentMessage[] }> {
  return bounded(
    (async () => {
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      return { events, result: await stream.result() };
    })(),
  );
}

export const context = (tools: AgentTool[] = [], messages: AgentMessage[] = []): AgentContext => ({ systemPrompt: "", messages, tools });

export const agentEnds = (events: AgentEvent[]) => events.filter((event): event is Extract<AgentEvent, { type: "agent_end" }> => event.type === "agent_end");

export const toolResults = (messages: AgentMessage[]): ToolResultMessage[] =>
  messages.filter((message): message is ToolResultMessage => (message as { role?: string }).role === "toolResult");

export const resultText = (message: ToolResultMessage | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

/** A tool whose `execute` does whatever `behave` does (return anything, throw anything, never settle). */
export function hostileTool(name: string, behave: (signal?: AbortSignal) => unknown): AgentTool {
  return {
    name,
    label: name,
    description: "hostile",
    parameters: Type.Object({}),
    execute: (_id, _args, signal) => Promise.resolve().then(() => behave(signal)) as never,
  };
}

export const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A stream function that plays raw events (well- or ill-formed) on microtasks. */
export function rawStream(script: (push: (event: unknown) => void, end: () => void, signal?: AbortSignal) => Promise<void> | void): StreamFn & { calls: number } {
  const fn = (_model: unknown, _context: unknown, options?: { signal?: AbortSignal }) => {
    fn.calls += 1;
    const stream = new EventStream<AssistantMessageEvent, AssistantMessage>(
      (event) => event.type === "done" || event.type === "error",
      (event) => ((event as { message?: AssistantMessage }).message ?? (event as { error?: AssistantMessage }).error) as AssistantMessage,
    );
    void Promise.resolve().then(() => script((event) => stream.push(event as AssistantMessageEvent), () => stream.end(), options?.signal));
    return stream;
  };
  fn.calls = 0;
  return fn as unknown as StreamFn & { calls: number };
}
