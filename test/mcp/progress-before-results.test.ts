/**
 * A call's progress notifications and its result read in one chunk (a server that answers
 * right after its last step, a client that did not read for a moment): every notification
 * still reaches the call's `onprogress`, before the result. The real SDK client, over a
 * transport that hands it the messages as its stdio transport hands it one chunk's.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { deliverProgressBeforeResults } from "../../src/mcp/progress-before-results.js";

/** Steps the server reports before it answers the call. */
const STEPS = 3;

/** A server that answers `tools/call` with its progress and its result in one synchronous burst. */
class OneChunkServer implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("method" in message) || !("id" in message)) return;
    const { id } = message;
    if (message.method === "initialize") {
      setTimeout(() => this.onmessage?.({ jsonrpc: "2.0", id, result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: "one-chunk", version: "1" } } }));
    } else if (message.method === "tools/call") {
      const progressToken = (message.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      setTimeout(() => {
        // One chunk: the stdio transport calls onmessage for each of its messages in a row.
        if (progressToken !== undefined) {
          for (let step = 1; step <= STEPS; step += 1) this.onmessage?.({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: step, total: STEPS } });
        }
        this.onmessage?.({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } });
      });
    }
  }
}

describe("progress read in the same chunk as the call's result", () => {
  it("should reach onprogress, every step and before the result", async () => {
    const transport = new OneChunkServer();
    const client = new Client({ name: "test", version: "1" });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    deliverProgressBeforeResults(transport);
    const seen: string[] = [];
    const result = client.callTool({ name: "count", arguments: {} }, undefined, { onprogress: ({ progress }) => seen.push(`step ${progress}`) }).then((answer) => {
      seen.push("result");
      return answer;
    });
    expect((await result).content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual(["step 1", "step 2", "step 3", "result"]);
    expect(errors).toEqual([]);
    await client.close();
  });
});
