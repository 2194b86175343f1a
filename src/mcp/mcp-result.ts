/**
 * MCP results and progress as loopchart tool results: text and images stay content
 * blocks, audio and resources become text the model can read, `structuredContent`
 * and `isError` carry over.
 */
import type { AgentToolResult, ImageContent, JsonValue, TextContent } from "../types.js";

/** The parts of an MCP content block loopchart reads. */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** The parts of an MCP `CallToolResult` loopchart reads. */
export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** Servers of protocol 2024-10-07 and older answer with `toolResult` instead. */
  toolResult?: unknown;
}

/** What every MCP tool result's `details` holds. */
export interface McpResultDetails {
  /** The server's name in this tool set. */
  server: string;
  /** The tool's own name on the server (without any prefix). */
  tool: string;
}

/** What a progress update's `details` holds. */
export interface McpProgressDetails extends McpResultDetails {
  progress: number;
  total?: number;
  message?: string;
}

/** Maps an MCP call result to a loopchart tool result. */
export function toAgentResult(result: McpCallResult, details: McpResultDetails): AgentToolResult<McpResultDetails> {
  const content = (result.content ?? []).map(toContentBlock);
  if ("toolResult" in result && result.content === undefined) content.push({ type: "text", text: JSON.stringify(result.toolResult) });
  const structured = result.structuredContent as JsonValue | undefined;
  // The spec asks servers to repeat structured output as text; some do not.
  if (content.length === 0 && structured !== undefined) content.push({ type: "text", text: JSON.stringify(structured) });
  return {
    content,
    details,
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

function toContentBlock(block: McpContentBlock): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text ?? "" };
    case "image":
      return { type: "image", data: block.data ?? "", mimeType: block.mimeType ?? "image/png" };
    case "audio":
      return { type: "text", text: `[audio ${block.mimeType ?? ""}, ${base64Bytes(block.data)} bytes]` };
    case "resource_link":
      return { type: "text", text: `[resource ${block.uri ?? ""}${block.name ? ` (${block.name})` : ""}${block.mimeType ? ` ${block.mimeType}` : ""}]` };
    case "resource": {
      const resource = block.resource ?? {};
      if (typeof resource.text === "string") return { type: "text", text: resource.text };
      if (typeof resource.blob === "string" && resource.mimeType?.startsWith("image/")) return { type: "image", data: resource.blob, mimeType: resource.mimeType };
      return { type: "text", text: `[resource ${resource.uri ?? ""}${resource.mimeType ? ` ${resource.mimeType}` : ""}, ${base64Bytes(resource.blob)} bytes]` };
    }
    default:
      return { type: "text", text: `[${block.type} content]` };
  }
}

function base64Bytes(data: string | undefined): number {
  if (data === undefined) return 0;
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/** A progress notification as a partial result (`tool_execution_update`). */
export function progressUpdate(progress: { progress: number; total?: number; message?: string }, details: McpResultDetails): AgentToolResult<McpProgressDetails> {
  const fraction = progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
  return {
    content: [{ type: "text", text: progress.message === undefined ? fraction : `${progress.message} (${fraction})` }],
    details: { ...details, progress: progress.progress, ...(progress.total === undefined ? {} : { total: progress.total }), ...(progress.message === undefined ? {} : { message: progress.message }) },
  };
}
