/**
 * OpenTelemetry spans derived from the agent event stream: run > turn > (model request |
 * tool call), with GenAI semantic-convention attributes. `@opentelemetry/api` is an optional
 * peer dependency, loaded only when a run asks for telemetry.
 */
import { createRequire } from "node:module";
import type { AgentEvent, AssistantMessage } from "../types.js";
import type { TelemetryApi, TelemetryContext, TelemetrySpan, TelemetryTracer } from "./telemetry-types.js";

/** The instrumentation scope name spans are created under. */
export const TELEMETRY_TRACER_NAME = "loopchart";

let api: TelemetryApi | null | undefined;
function loadApi(): TelemetryApi | undefined {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)("@opentelemetry/api") as TelemetryApi;
    } catch {
      api = null;
    }
  }
  return api ?? undefined;
}

/**
 * A sink that turns a run's events into spans on `tracer`: `agent.run` (agent_start to
 * agent_end, error status for exit reason `error`), `agent.turn` per turn, `gen_ai.request`
 * per model request (turn_start or the previous tool batch to the assistant's message_end;
 * `gen_ai.request.model`, `gen_ai.system`, `gen_ai.usage.input_tokens`/`output_tokens`,
 * error status for stopReason `error`), and `tool.call` per call (`tool.name`,
 * `tool.call.id`, `tool.is_error`, `tool.duration_ms`; error status when isError). Give it
 * every event of one run, in order; never throws. Spans still open at `agent_end` are ended.
 */
export function createTelemetrySink(tracer: TelemetryTracer, otel: TelemetryApi | undefined = loadApi()): (event: AgentEvent) => void {
  if (!otel) return () => {};
  const { trace, SpanStatusCode } = otel;
  let run: TelemetrySpan | undefined;
  let runContext: TelemetryContext | undefined;
  let turn: TelemetrySpan | undefined;
  let turnContext: TelemetryContext | undefined;
  let request: TelemetrySpan | undefined;
  const tools = new Map<string, { span: TelemetrySpan; started: number }>();
  const child = (name: string, parent: TelemetryContext | undefined) => tracer.startSpan(name, {}, parent);

  const startRequest = () => {
    request ??= child("gen_ai.request", turnContext);
  };

  return (event) => {
    try {
      switch (event.type) {
        case "agent_start":
          run = tracer.startSpan("agent.run");
          runContext = trace.setSpan(otel.context.active(), run);
          break;
        case "turn_start":
          turn = child("agent.turn", runContext);
          turnContext = trace.setSpan(runContext ?? otel.context.active(), turn);
          startRequest();
          break;
        case "message_end": {
          if (event.message.role !== "assistant") break;
          const message = event.message as AssistantMessage;
          startRequest();
          const span = request as TelemetrySpan;
          span.setAttributes({
            "gen_ai.request.model": message.model,
            "gen_ai.system": message.provider,
            "gen_ai.provider.name": message.provider,
            "gen_ai.usage.input_tokens": message.usage?.input ?? 0,
            "gen_ai.usage.output_tokens": message.usage?.output ?? 0,
            "gen_ai.response.finish_reasons": [message.stopReason],
          });
          if (message.stopReason === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: message.errorMessage ?? "error" });
          span.end();
          request = undefined;
          break;
        }
        case "tool_execution_start": {
          const span = child("tool.call", turnContext);
          span.setAttributes({ "tool.name": event.toolName, "tool.call.id": event.toolCallId, "gen_ai.tool.name": event.toolName, "gen_ai.tool.call.id": event.toolCallId });
          tools.set(event.toolCallId, { span, started: Date.now() });
          break;
        }
        case "tool_execution_end": {
          const open = tools.get(event.toolCallId);
          if (!open) break;
          open.span.setAttributes({ "tool.is_error": event.isError, "tool.duration_ms": Date.now() - open.started });
          if (event.isError) open.span.setStatus({ code: SpanStatusCode.ERROR, message: "tool returned an error result" });
          open.span.end();
          tools.delete(event.toolCallId);
          break;
        }
        case "turn_end":
          request?.end();
          request = undefined;
          turn?.end();
          turn = undefined;
          break;
        case "agent_end":
          for (const { span } of tools.values()) span.end();
          tools.clear();
          request?.end();
          turn?.end();
          if (run) {
            if (event.exitReason) run.setAttribute("agent.exit_reason", event.exitReason);
            if (event.exitReason === "error") run.setStatus({ code: SpanStatusCode.ERROR, message: event.errorMessage ?? "error" });
            run.end();
          }
          request = turn = run = undefined;
          break;
        default:
          break;
      }
    } catch {
      // Telemetry never breaks a run.
    }
  };
}

/**
 * The telemetry sink for a run, or undefined (no cost) when `@opentelemetry/api` is not
 * installed or no tracer provider is registered. `config` is reserved for per-run options.
 */
export function telemetryFor(_config?: unknown): ((event: AgentEvent) => void) | undefined {
  const otel = loadApi();
  if (!otel) return undefined;
  const provider = otel.trace.getTracerProvider() as { getDelegateTracer?: (name: string) => TelemetryTracer | undefined };
  const tracer = typeof provider.getDelegateTracer === "function" ? provider.getDelegateTracer(TELEMETRY_TRACER_NAME) : otel.trace.getTracer(TELEMETRY_TRACER_NAME);
  return tracer ? createTelemetrySink(tracer, otel) : undefined;
}
