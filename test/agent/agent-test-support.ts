/** What the `Agent` tests share: a tool from a function, a deferred, a stream function that must not be called. */
import { Agent, type AgentMessage, type AgentTool, type AssistantMessage, type JsonSchema, type StreamFn } from "../../src/index.js";
import { mockStream, testModel } from "../helpers/mock-stream.js";
export const emptySchema: JsonSchema = { type: "object", properties: {} };

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export function tool(name: string, execute: AgentTool["execute"]): AgentTool {
  return { name, label: name, description: name, parameters: emptySchema, execute };
}

export const ok = async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} });

export const unusedStreamFn: StreamFn = () => {
  throw new Error("Unexpected stream call");
};

export const lastOf = (messages: AgentMessage[]) => messages[messages.length - 1] as AssistantMessage;

/** An agent whose model request starts and then hangs until aborted; `started` resolves once the request began. */
export function hangingAgent(): { agent: Agent; started: { promise: Promise<void>; resolve: () => void } } {
  const started = deferred();
  const agent = new Agent({
    initialState: { model: testModel },
    streamFn: (model, context, options) => {
      started.resolve();
      return mockStream([{ hang: true }])(model, context, options);
    },
  });
  return { agent, started };
}
