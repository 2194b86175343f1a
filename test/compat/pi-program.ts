/**
 * A program written for @mariozechner/pi-agent-core 0.73. The only change for
 * loopchart is the import path on the marked line; everything else — tools,
 * hooks, a custom message kind, pi-ai's stream helpers — is pi code as written.
 */
import {
  agentLoop,
  type AfterToolCallContext,
  type AgentContext,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  type AgentTool,
  type BeforeToolCallContext,
  type StreamFn,
} from "../../src/index.js"; // was: from "@mariozechner/pi-agent-core"
import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type Message,
  type Model,
} from "@mariozechner/pi-ai";
import { Type, type Static } from "typebox";

// A custom message kind, added the pi way (declaration merging).
export interface ReminderMessage {
  role: "reminder";
  text: string;
  timestamp: number;
}
declare module "../../src/index.js" {
  interface CustomAgentMessages {
    reminder: ReminderMessage;
  }
}

const weatherParams = Type.Object({ city: Type.String(), days: Type.Number() });
type WeatherParams = Static<typeof weatherParams>;

export const weatherTool: AgentTool<typeof weatherParams, { city: string }> = {
  name: "weather",
  label: "Weather",
  description: "Forecast for a city",
  parameters: weatherParams,
  async execute(toolCallId: string, params: WeatherParams, signal?: AbortSignal, onUpdate?) {
    if (signal?.aborted) throw new Error("aborted");
    onUpdate?.({ content: [{ type: "text", text: `looking up ${params.city}` }], details: { city: params.city } });
    return { content: [{ type: "text", text: `${params.city}: sunny for ${params.days} days (${toolCallId})` }], details: { city: params.city } };
  },
};

export const model: Model<"openai-completions"> = {
  id: "fake",
  name: "Fake",
  api: "openai-completions",
  provider: "fake",
  baseUrl: "http://127.0.0.1:1",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};

function reply(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    timestamp: Date.now(),
  };
}

/** A fake model built with pi-ai's own stream class: first a tool call, then an answer. */
export const fakeStream: StreamFn = (_model, context) => {
  const stream = createAssistantMessageEventStream();
  const sawResult = context.messages.some((m: Message) => m.role === "toolResult");
  const final = sawResult
    ? reply([{ type: "text", text: "It will be sunny." }], "stop")
    : reply([{ type: "toolCall", id: "w1", name: "weather", arguments: { city: "Oslo", days: "3" } }], "toolUse");
  queueMicrotask(() => {
    stream.push({ type: "start", partial: { ...final, content: [] } });
    stream.push({ type: "done", reason: final.stopReason === "stop" ? "stop" : "toolUse", message: final });
  });
  return stream;
};

export async function runPiProgram(): Promise<{ log: string[]; messages: AgentMessage[]; sawReminder: boolean }> {
  const log: string[] = [];
  let sawReminder = false;
  const context: AgentContext = {
    systemPrompt: "You are a weather bot.",
    messages: [{ role: "reminder", text: "the user lives in Oslo", timestamp: 0 }],
    tools: [weatherTool],
  };
  const config: AgentLoopConfig = {
    model,
    convertToLlm: (messages: AgentMessage[]): Message[] =>
      messages.flatMap((m): Message[] => {
        if (m.role === "reminder") {
          sawReminder = true;
          return [{ role: "user", content: `Reminder: ${m.text}`, timestamp: m.timestamp }];
        }
        return [m];
      }),
    beforeToolCall: async ({ toolCall, args }: BeforeToolCallContext) => {
      log.push(`before ${toolCall.name} ${JSON.stringify(args)}`);
      return undefined;
    },
    afterToolCall: async ({ result, isError }: AfterToolCallContext) => {
      log.push(`after isError=${isError}`);
      return { details: { ...(result.details as object), audited: true } };
    },
    getSteeringMessages: async () => [],
    getFollowUpMessages: async () => [],
    toolExecution: "parallel",
  };
  const stream = agentLoop([{ role: "user", content: "Weather?", timestamp: Date.now() }], context, config, undefined, fakeStream);
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    switch (event.type) {
      case "message_update":
        log.push(`update ${event.assistantMessageEvent.type}`);
        break;
      case "tool_execution_update":
        log.push(`progress ${JSON.stringify(event.partialResult.content)}`);
        break;
      case "tool_execution_end":
        log.push(`tool ${event.toolName} ${event.isError ? "failed" : "ok"} ${JSON.stringify(event.result.details)}`);
        break;
      case "agent_end":
        log.push(`end ${event.messages.length}`);
        break;
      default:
        break;
    }
  }
  return { log, messages: await stream.result(), sawReminder };
}
