/**
 * Only whole calls run (issue 32, defect 10): a loopback OpenAI-compatible server streams a
 * bash call whose arguments are cut mid-string and ends the response with
 * `finish_reason: "tool_calls"`. The real CLI refuses the call with an error result naming the
 * tool and the cut JSON (which the model then sees), and nothing runs.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./spawn-cli.js";
import { tempDir } from "../support/temp-dir.js";

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "loopback-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe("a tool call whose arguments are cut", { timeout: 60_000 }, () => {
  let server: Server | undefined;
  afterEach(async () => new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined))));

  it("is refused with an error result the model can act on, and nothing runs, although the response ends with tool_calls", async () => {
    const root = await tempDir("loopchart-cut-args-");
    const cwd = join(root, "ws");
    await mkdir(cwd);
    const requests: { messages: { role: string; content?: unknown; tool_call_id?: string }[] }[] = [];
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (data: Buffer) => (body += String(data)));
      request.on("end", () => {
        requests.push(JSON.parse(body) as (typeof requests)[number]);
        response.writeHead(200, { "content-type": "text/event-stream" });
        if (requests.length === 1) {
          response.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_cut", type: "function", function: { name: "bash", arguments: "" } }] }));
          response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command": "echo RAN-WITH-CUT-ARGS > ../cut' } }] }));
          response.write(chunk({}, "tool_calls"));
        } else {
          response.write(chunk({ role: "assistant", content: "Understood." }));
          response.write(chunk({}, "stop"));
        }
        response.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const result = await runCli(["run", "--model", "openai-compatible/loopback-model", "--base-url", baseUrl, "--max-retries", "0", "--cwd", cwd, "--json", "hi"], { cwd });

    expect(existsSync(join(root, "cut")), "the cut command ran").toBe(false);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; isError?: boolean; toolName?: string; result?: { content: { text: string }[] } });
    const ended = events.find((event) => event.type === "tool_execution_end");
    expect(ended).toMatchObject({ toolName: "bash", isError: true });
    const text = ended?.result?.content[0]?.text ?? "";
    expect(text).toContain("Tool bash was not run: the arguments are not complete JSON");
    expect(text).toContain('they ended: {"command": "echo RAN-WITH-CUT-ARGS > ../cut');
    expect(text).toContain("Call bash again with its complete arguments as one valid JSON object");
    // The model is told, on the next request, in the call's tool message.
    const told = requests[1]?.messages.find((message) => message.role === "tool");
    expect(told).toMatchObject({ tool_call_id: "call_cut" });
    expect(JSON.stringify(told?.content)).toContain("Tool bash was not run");
  });
});
