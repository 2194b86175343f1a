/**
 * How `loopchart run` answers a tool call that waits for approval: on a terminal it
 * asks y/n/always; without one it says how to answer later (`loopchart approve|reject`)
 * and the run exits with `EXIT_CODES.approvalPending`.
 */
import { createInterface } from "node:readline";
import type { CliIo } from "./cli-io.js";

/** A decision for a waiting call, as the loop actor takes it. */
export type ApprovalDecision = { type: "tool.approve"; toolCallId: string; always?: boolean } | { type: "tool.reject"; toolCallId: string; reason?: string };

/** What `approval_requested` said about a call. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

/** Whether the CLI can ask: both stdin and stderr are terminals. */
export function canAsk(io: CliIo): boolean {
  return (io.stdin as { isTTY?: boolean }).isTTY === true && io.stderr.isTTY === true;
}

/** Longest argument text shown in the question before it is cut. */
export const APPROVAL_ARGS_PREVIEW_CHARS = 200;

/**
 * Asks on the terminal until the answer is y(es), n(o) or a(lways); resolves with the
 * decision. End of input counts as no.
 */
export function askApproval(io: CliIo, request: ApprovalRequest): Promise<ApprovalDecision> {
  const args = JSON.stringify(request.args) ?? "";
  const shown = args.length > APPROVAL_ARGS_PREVIEW_CHARS ? `${args.slice(0, APPROVAL_ARGS_PREVIEW_CHARS)}…` : args;
  const lines = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    const finish = (decision: ApprovalDecision) => {
      answered = true;
      lines.close();
      resolve(decision);
    };
    const ask = () => io.stderr.write(`Run ${request.toolName} ${shown}? [y]es, [n]o, [a]lways for ${request.toolName}: `);
    lines.on("line", (line) => {
      const answer = line.trim().toLowerCase();
      if (answer === "y" || answer === "yes") finish({ type: "tool.approve", toolCallId: request.toolCallId });
      else if (answer === "a" || answer === "always") finish({ type: "tool.approve", toolCallId: request.toolCallId, always: true });
      else if (answer === "n" || answer === "no") finish({ type: "tool.reject", toolCallId: request.toolCallId, reason: "the user said no" });
      else ask();
    });
    lines.on("close", () => {
      if (!answered) finish({ type: "tool.reject", toolCallId: request.toolCallId, reason: "no answer (end of input)" });
    });
    ask();
  });
}

/** The note printed when calls wait and there is no terminal: how to answer each one later. */
export function pendingApprovalNote(options: { invokedAs: string; sessionId?: string; storeArgs: string; waiting: ApprovalRequest[] }): string {
  const { invokedAs, sessionId, storeArgs, waiting } = options;
  const calls = waiting.map((request) => `${request.toolCallId} (${`${request.toolName} ${JSON.stringify(request.args) ?? ""}`.trimEnd()})`).join(", ");
  if (sessionId === undefined) {
    return `Tool call ${calls} waits for approval, but there is no terminal to ask on and no --session to keep the run. Run it on a terminal, or with --session <id> and answer with ${invokedAs} approve.\n`;
  }
  const commands = waiting
    .map((request) => `  ${invokedAs} approve ${sessionId} ${request.toolCallId}${storeArgs} [--always]\n  ${invokedAs} reject ${sessionId} ${request.toolCallId}${storeArgs} [--reason "…"]\n`)
    .join("");
  return `Waiting for approval: ${calls}. The session "${sessionId}" is saved; answer with:\n${commands}`;
}
