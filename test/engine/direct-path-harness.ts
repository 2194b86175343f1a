/**
 * What the direct-path tests share (`direct-call.test.ts`, `direct-batch.test.ts`):
 * tools that echo, throw, terminate or ignore the abort, a model that answers by
 * turn (so a restored run is asked what the original was), and a run that
 * records its events, which `dispatching` child it took, and its transcript —
 * with the direct path open, or closed (`viaBatch`: every call through the batch).
 */
import { Type } from "typebox";
import type { AnyActorRef } from "xstate";
import { ALONE_CALL_ID } from "../../machines/index.js";
import { createAgentLoopActor } from "../../src/xstate/index.js";
import { createLoopActorOf, runMachine } from "../../src/agent-loop-actor.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, StreamFn } from "../../src/types.js";
import { baseConfig, mockStream, type MockResponse } from "../helpers/mock-stream.js";

export const parameters = Type.Object({ text: Type.String() });

export type Behaviour = "echo" | "throw" | "terminate" | "waitForAbort" | "ignoreAbort";

/** A tool named `name` that echoes, throws, terminates, waits for the run's abort, or never settles. */
export function tool(name = "echo", behaviour: Behaviour = "echo", extra: Partial<AgentTool<typeof parameters>> = {}): AgentTool<typeof parameters> {
  return {
    name,
    label: name,
    description: `${name} (${behaviour})`,
    parameters,
    execute: (_id, args, signal) => {
      if (behaviour === "throw") return Promise.reject(new Error(`${name} failed on ${args.text}`));
      if (behaviour === "waitForAbort") {
        return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("stopped by the abort")), { once: true }));
      }
      if (behaviour === "ignoreAbort") return new Promise(() => undefined);
      return Promise.resolve({ content: [{ type: "text" as const, text: `${name}: ${args.text}` }], details: { n: args.text.length }, ...(behaviour === "terminate" ? { terminate: true } : {}) });
    },
    ...extra,
  };
}

export const call = (id: string, text = id, name = "echo") => ({ id, name, arguments: { text } });

/** Answers by how many assistant messages the request holds, so a restored run is asked what the original was. */
export function turnStream(responses: MockResponse[]): StreamFn {
  return (model, context, options) => {
    const turn = context.messages.filter((message) => message.role === "assistant").length;
    return mockStream([responses[turn] ?? { text: "(script exhausted)" }])(model, context, options);
  };
}

export interface Observed {
  events: AgentEvent[];
  /** Every `dispatching` child the loop was in, in order (`alone` or `batch`). */
  dispatched: string[];
  /** Whether a tool batch actor was ever a child of the loop. */
  sawBatch: boolean;
  messages: AgentMessage[];
  exitReason: string;
}

export interface RunOptions {
  responses: MockResponse[];
  tools?: AgentTool<typeof parameters>[];
  config?: Partial<AgentLoopConfig>;
  /** Aborts the run as soon as a tool starts executing. */
  abortOnToolStart?: boolean;
  /** Runs the shipped machine with the direct path closed (`runsAlone` false): every call goes through the batch. */
  viaBatch?: boolean;
  snapshot?: unknown;
  /** Called with each persisted snapshot taken while the loop is in `dispatching.alone` with its first call executing. */
  onAloneSnapshot?: (snapshot: unknown, actor: AnyActorRef) => void;
  /** Called with the loop's actor on each snapshot while the loop is in `dispatching.alone`. */
  onAlone?: (actor: AnyActorRef) => void;
}

export async function run(options: RunOptions): Promise<Observed> {
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const dispatched: string[] = [];
  let sawBatch = false;
  const tools = (options.tools ?? [tool()]).map((each) =>
    options.abortOnToolStart ? { ...each, execute: (...args: Parameters<typeof each.execute>) => (queueMicrotask(() => controller.abort()), each.execute(...args)) } : each,
  );
  const create = (loopOptions: Parameters<typeof createAgentLoopActor>[0]) =>
    options.viaBatch ? createLoopActorOf(runMachine().provide({ guards: { runsAlone: () => false } }), loopOptions) : createAgentLoopActor(loopOptions);
  const actor = create({
    prompts: [{ role: "user", content: "go", timestamp: 1 }],
    context: { systemPrompt: "test", messages: [], tools },
    config: baseConfig({ abortGraceMs: 30, ...options.config }),
    streamFn: turnStream(options.responses),
    signal: controller.signal,
    ...(options.snapshot ? { snapshot: options.snapshot as never } : {}),
    onEvent: (event) => events.push(event),
  });
  actor.subscribe((snapshot) => {
    if (snapshot.children.toolBatch) sawBatch = true;
    const value = snapshot.value as unknown;
    const child = typeof value === "object" && value !== null ? (value as { dispatching?: string }).dispatching : undefined;
    if (child !== undefined && dispatched.at(-1) !== child) dispatched.push(child);
    if (child === "alone") options.onAlone?.(actor);
    if (child === "alone" && options.onAloneSnapshot) {
      const callValue = (snapshot.children[ALONE_CALL_ID] as AnyActorRef | undefined)?.getSnapshot().value as unknown;
      if (typeof callValue === "object" && callValue !== null && "executing" in callValue) options.onAloneSnapshot(actor.getPersistedSnapshot(), actor);
    }
  });
  const output = await new Promise<{ exitReason: string; messages: AgentMessage[] }>((resolve) => {
    actor.subscribe({ complete: () => resolve(actor.getSnapshot().output as { exitReason: string; messages: AgentMessage[] }) });
    actor.start();
  });
  return { events, dispatched, sawBatch, messages: output.messages, exitReason: output.exitReason };
}

/** `value` without the fields two runs at different times differ in. */
export function withoutClocks(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, field: unknown) => (key === "timestamp" || key === "durationMs" ? undefined : field));
}

/** A `beforeToolCall` that does nothing: its run takes the batch's path (the hook needs the handshake). */
export const noOpHook: Partial<AgentLoopConfig> = { beforeToolCall: async () => undefined };
