/**
 * A loopback LLM server for tests: speaks the OpenAI chat completions and the
 * Anthropic messages streaming wire formats, driven by a script of steps, and
 * can fail the ways real servers do (HTTP 500/429 with a JSON error body, a
 * stream that stalls, malformed SSE).
 *
 * Listens on 127.0.0.1, port chosen by the OS. Each POST to
 * `/v1/chat/completions` (OpenAI) or `/v1/messages` (Anthropic) plays the next
 * step in the format of the endpoint it hit.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ScriptedContentBlock, ScriptedResponse } from "../../src/providers/index.js";

/** A streamed reply: scripted content with stopReason `stop`, `length` or `toolUse` (default by content). */
export type ServerReply = Omit<ScriptedResponse, "stopReason" | "when" | "delayMs"> & {
  stopReason?: "stop" | "length" | "toolUse";
};

/** One step of a server script. */
export type ServerStep =
  | ServerReply
  /** Answers with this HTTP status and a JSON error body in the endpoint's format. */
  | { httpError: { status: number; message: string; code?: string } }
  /** Starts the stream (and sends `content`, if any), then never sends more until the client goes away. */
  | { stall: { content?: ScriptedContentBlock[] } }
  /** Sends one valid chunk, then a `data:` line that is not JSON, then ends the response. */
  | { malformed: true };

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
}

/** A running loopback server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`; API roots are `${url}/v1`. */
  url: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  /** Resolves once a stalled response's client has disconnected (for abort tests). */
  clientDisconnected(): Promise<void>;
  /** Ends open responses and stops listening. */
  close(): Promise<void>;
}

/** Characters per token for the usage figures the server reports. */
const CHARS_PER_TOKEN = 4;
/** Characters per streamed text or arguments piece. */
const PIECE_CHARS = 7;

/** Starts a server that plays `script.responses` one per request. Rejects if it cannot listen. */
export async function startScriptedServer(script: { responses: ServerStep[] }): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  let next = 0;
  let signalDisconnect: () => void = () => undefined;
  const disconnected = new Promise<void>((resolve) => {
    signalDisconnect = resolve;
  });

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `loopback server failed: ${String(error)}` } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });
    const format = path.endsWith("/chat/completions") ? "openai" : path.endsWith("/messages") ? "anthropic" : undefined;
    if (req.method !== "POST" || !format) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `loopback server: no route for ${req.method} ${path}` } }));
      return;
    }
    const step = script.responses[next];
    next += 1;
    if (!step) {
      sendError(res, format, 500, `loopback server: script exhausted after ${script.responses.length} responses`);
      return;
    }
    if ("httpError" in step) {
      sendError(res, format, step.httpError.status, step.httpError.message, step.httpError.code);
      return;
    }
    const model = typeof (body as { model?: unknown })?.model === "string" ? (body as { model: string }).model : "loopback";
    const inputTokens = Math.ceil(text.length / CHARS_PER_TOKEN);
    open.add(res);
    res.on("close", () => open.delete(res));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const writer = format === "openai" ? openAiWriter(res, model, body) : anthropicWriter(res, model);
    if ("stall" in step) {
      req.on("close", () => signalDisconnect());
      res.on("close", () => signalDisconnect());
      await writer.begin(inputTokens);
      for (const block of step.stall.content ?? []) await writer.block(block);
      return; // never ends: waits for the client to disconnect
    }
    if ("malformed" in step) {
      await writer.begin(inputTokens);
      res.write("data: {this is not json\n\n");
      res.end();
      return;
    }
    await writer.begin(inputTokens);
    for (const block of step.content) await writer.block(block);
    const hasToolCalls = step.content.some((block) => block.type === "toolCall");
    const stopReason = step.stopReason ?? (hasToolCalls ? "toolUse" : "stop");
    const outputTokens = step.usage?.output ?? Math.ceil(JSON.stringify(step.content).length / CHARS_PER_TOKEN);
    await writer.end(stopReason, { input: step.usage?.input ?? inputTokens, output: outputTokens });
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    clientDisconnected: () => disconnected,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface WireWriter {
  begin(inputTokens: number): Promise<void>;
  block(block: ScriptedContentBlock): Promise<void>;
  end(stopReason: "stop" | "length" | "toolUse", usage: { input: number; output: number }): Promise<void>;
}

function openAiWriter(res: ServerResponse, model: string, body: unknown): WireWriter {
  const id = "chatcmpl-loopback";
  const created = Math.floor(Date.now() / 1000);
  let toolIndex = 0;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Promise<void> =>
    sendData(res, { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const wantsUsage = (body as { stream_options?: { include_usage?: boolean } })?.stream_options?.include_usage === true;
  return {
    begin: () => chunk({ role: "assistant", content: "" }),
    async block(block) {
      switch (block.type) {
        case "text":
          for (const piece of pieces(block.text)) await chunk({ content: piece });
          return;
        case "thinking":
          for (const piece of pieces(block.thinking)) await chunk({ reasoning_content: piece });
          return;
        case "toolCall": {
          const index = toolIndex;
          toolIndex += 1;
          const callId = block.id ?? `call_loopback_${index}`;
          await chunk({ tool_calls: [{ index, id: callId, type: "function", function: { name: block.name, arguments: "" } }] });
          const args = typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments);
          for (const piece of pieces(args)) await chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
          return;
        }
      }
    },
    async end(stopReason, usage) {
      const finish = stopReason === "toolUse" ? "tool_calls" : stopReason;
      await chunk({}, finish);
      if (wantsUsage) {
        await sendData(res, {
          id,
          object: "chat.completion.chunk",
          created,
          model,
          choices: [],
          usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
        });
      }
      res.write("data: [DONE]\n\n");
    },
  };
}

function anthropicWriter(res: ServerResponse, model: string): WireWriter {
  let index = 0;
  const event = (type: string, data: Record<string, unknown>): Promise<void> => sendData(res, { type, ...data }, type);
  return {
    begin: (inputTokens) =>
      event("message_start", {
        message: {
          id: "msg_loopback",
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: 1 },
        },
      }),
    async block(block) {
      const blockIndex = index;
      index += 1;
      switch (block.type) {
        case "text":
          await event("content_block_start", { index: blockIndex, content_block: { type: "text", text: "" } });
          for (const piece of pieces(block.text)) await event("content_block_delta", { index: blockIndex, delta: { type: "text_delta", text: piece } });
          break;
        case "thinking":
          await event("content_block_start", { index: blockIndex, content_block: { type: "thinking", thinking: "", signature: "" } });
          for (const piece of pieces(block.thinking)) {
            await event("content_block_delta", { index: blockIndex, delta: { type: "thinking_delta", thinking: piece } });
          }
          await event("content_block_delta", { index: blockIndex, delta: { type: "signature_delta", signature: "loopback-signature" } });
          break;
        case "toolCall": {
          const callId = block.id ?? `toolu_loopback_${blockIndex}`;
          await event("content_block_start", { index: blockIndex, content_block: { type: "tool_use", id: callId, name: block.name, input: {} } });
          const args = typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments);
          for (const piece of pieces(args)) {
            await event("content_block_delta", { index: blockIndex, delta: { type: "input_json_delta", partial_json: piece } });
          }
          break;
        }
      }
      await event("content_block_stop", { index: blockIndex });
    },
    async end(stopReason, usage) {
      const reason = stopReason === "toolUse" ? "tool_use" : stopReason === "length" ? "max_tokens" : "end_turn";
      await event("message_delta", { delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: usage.output } });
      await event("message_stop", {});
    },
  };
}

function sendError(res: ServerResponse, format: "openai" | "anthropic", status: number, message: string, code?: string): void {
  const type = code !== undefined ? "invalid_request_error" : status === 429 ? "rate_limit_exceeded" : "server_error";
  const body =
    format === "openai"
      ? { error: { message, type, code: code ?? null } }
      : { type: "error", error: { type: status === 429 ? "rate_limit_error" : "api_error", message } };
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Writes one SSE event and yields to the event loop, so the client sees chunks arrive separately. */
async function sendData(res: ServerResponse, data: unknown, eventName?: string): Promise<void> {
  if (res.destroyed) return;
  res.write(`${eventName ? `event: ${eventName}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  await new Promise((resolve) => setImmediate(resolve));
}

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length; start += PIECE_CHARS) out.push(text.slice(start, start + PIECE_CHARS));
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
