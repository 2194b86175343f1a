import type { AgentEvent, AgentToolResult, ExitReason } from "../types.js";
import type { CliOutput } from "./cli-io.js";
import type { EventRenderer } from "./event-renderer.js";
import { createStyle, formatCost, formatCount, formatDuration, plural } from "./format.js";
import { asAssistant, emptyRunStats, observeEvent, type RunStats } from "./run-stats.js";
import { SUMMARY_MAX_CHARS, oneLine, summarizeArgs, summarizeResult } from "./summarize.js";

/** Why a compaction ran, in words. */
const COMPACTION_REASONS = {
  threshold: "the context nears the window",
  overflow: "the provider refused the request as too long",
  length: "the answer was cut off far below its limit",
  manual: "asked for",
} as const;

/** How often the TTY spinner redraws. */
export const SPINNER_INTERVAL_MS = 80;
/** Without a TTY, how often a still-running tool call is reported. */
export const STILL_RUNNING_INTERVAL_MS = 5000;
const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_LINE = "\r\u001b[2K";
/** Width assumed when the terminal does not report one. */
const DEFAULT_COLUMNS = 100;
const MIN_STATUS_WIDTH = 20;

/** Options of {@link createHumanRenderer}. */
export interface HumanRendererOptions {
  /** Receives the assistant's text as it streams. */
  out: CliOutput;
  /** Receives tool progress, model errors, notices and the final line. */
  err: CliOutput;
  /** A run happening now: enables the spinner (when `err` is a TTY) and "still running" reports. False for replays. */
  live: boolean;
  /** ANSI colours. */
  color: boolean;
  /** Clock for live elapsed times. Default `Date.now`. */
  now?: () => number;
  /** Turns the run started before these events (a restored session's run): the final line counts them too. */
  turnsBefore?: number;
  /** Turns of the session's earlier runs (`run --session` on a session with a transcript): the final line gives the session's total too. */
  earlierSessionTurns?: number;
  /** The arguments of a call that started before these events (a restored run's), for its ✓/✗ line. */
  argsOfEarlierCall?: (toolCallId: string) => unknown;
}

interface RunningCall {
  name: string;
  summary: string;
  startedAt: number;
  lastReportAt: number;
}

/**
 * The terminal view of a run: assistant text streams to `out`; each tool call shows on
 * `err` as it runs (name, argument summary, elapsed time — a spinner on a TTY) and ends
 * with ✓/✗ and a result summary; the run ends with one line of exit reason, turns,
 * tool calls, tokens and cost (when known). While a call awaits approval the spinner
 * stands still (the question stays visible); its time counts from `approvalAnswered`.
 */
export function createHumanRenderer({ out, err, live, color, now = Date.now, turnsBefore = 0, earlierSessionTurns = 0, argsOfEarlierCall }: HumanRendererOptions): EventRenderer & { stats: RunStats } {
  const style = createStyle(color);
  const stats = { ...emptyRunStats(), turns: turnsBefore };
  const running = new Map<string, RunningCall>();
  // Calls whose approval question is open: no spinner redraws then (it would erase the question).
  const awaiting = new Set<string>();
  const spinner = live && err.isTTY === true;
  let frame = 0;
  let statusShown = false;
  let outMidLine = false;
  let textSeen = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** A request sent, nothing streamed back yet: the spinner says how long the model has been silent. */
  let waitingSince: number | undefined;

  const clearStatus = () => {
    if (statusShown) err.write(CLEAR_LINE);
    statusShown = false;
  };

  const drawStatus = () => {
    if (!spinner || (running.size === 0 && waitingSince === undefined) || awaiting.size > 0 || (outMidLine && out.isTTY)) return;
    const at = now();
    const parts = [...running.values()].map((call) => `${call.name} ${formatDuration(at - call.startedAt)} ${call.summary}`);
    if (waitingSince !== undefined) parts.unshift(`waiting for the model · ${formatDuration(at - waitingSince)}`);
    const width = Math.max(MIN_STATUS_WIDTH, (err.columns || DEFAULT_COLUMNS) - 1);
    err.write(`${CLEAR_LINE}${SPINNER_FRAMES[frame % SPINNER_FRAMES.length]} ${oneLine(parts.join("  │  "), width - 2)}`);
    statusShown = true;
  };

  const line = (text: string) => {
    clearStatus();
    if (outMidLine && (out === err || (out.isTTY === true && err.isTTY === true))) {
      out.write("\n");
      outMidLine = false;
    }
    err.write(`${text}\n`);
    drawStatus();
  };

  const tick = () => {
    frame += 1;
    if (spinner) {
      drawStatus();
      return;
    }
    const at = now();
    for (const [id, call] of running) {
      if (!awaiting.has(id) && at - call.lastReportAt >= STILL_RUNNING_INTERVAL_MS) {
        call.lastReportAt = at;
        line(style.dim(`… ${call.name} ${call.summary} · still running · ${formatDuration(at - call.startedAt)}`));
      }
    }
  };

  const startTimer = () => {
    if (!live || timer !== undefined) return;
    timer = setInterval(tick, spinner ? SPINNER_INTERVAL_MS : STILL_RUNNING_INTERVAL_MS / 5);
  };

  const stopTimerIfIdle = () => {
    if (running.size > 0 || waitingSince !== undefined || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };

  const writeText = (text: string) => {
    if (text === "") return;
    clearStatus();
    out.write(text);
    outMidLine = !text.endsWith("\n");
  };

  const endText = () => {
    if (outMidLine) out.write("\n");
    outMidLine = false;
  };

  const finalLine = (reason: ExitReason | undefined) => {
    const sessionTurns = earlierSessionTurns > 0 ? ` (${formatCount(earlierSessionTurns + stats.turns)} in the session)` : "";
    const parts = [reasonLabel(reason), `${plural(stats.turns, "turn")}${sessionTurns}`];
    const failed = stats.toolErrors > 0 ? ` (${formatCount(stats.toolErrors)} failed)` : "";
    parts.push(`${plural(stats.toolCalls, "tool call")}${failed}`);
    if (stats.totalTokens > 0) {
      parts.push(`${formatCount(stats.totalTokens)} tokens (${formatCount(stats.inputTokens)} in, ${formatCount(stats.outputTokens)} out)`);
    }
    if (stats.cost > 0) parts.push(formatCost(stats.cost));
    const text = `■ ${parts.join(" · ")}`;
    line(reason === "completed" || reason === "terminated" || reason === "stopped" ? style.bold(text) : style.red(text));
  };

  /** The first byte of the response arrived (or the turn ended without one): the wait is over. */
  const stopWaiting = () => {
    if (waitingSince === undefined) return;
    waitingSince = undefined;
    stopTimerIfIdle();
    if (running.size === 0) clearStatus();
  };

  const render = (event: AgentEvent, t: number): void => {
    observeEvent(stats, event);
    if (event.type === "message_update" || event.type === "message_end" || event.type === "agent_end") stopWaiting();
    switch (event.type) {
      case "turn_start":
        // Only a terminal gets the spinner; without one, the answer (or the idle timeout) says what happened.
        if (!spinner) return;
        waitingSince = t;
        drawStatus();
        startTimer();
        return;
      case "message_start":
        textSeen = false;
        return;
      case "message_update": {
        const update = event.assistantMessageEvent;
        if (update.type === "text_delta") {
          textSeen = true;
          writeText(update.delta);
        }
        return;
      }
      case "message_end": {
        const message = asAssistant(event.message);
        if (message === undefined) return;
        if (!textSeen) {
          const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
          writeText(text);
        }
        endText();
        if (message.stopReason === "error") line(style.red(`✗ model error: ${message.errorMessage ?? "unknown error"}`));
        else if (message.stopReason === "aborted") line(style.yellow(`■ model request aborted${message.errorMessage ? `: ${message.errorMessage}` : ""}`));
        else if (message.stopReason === "length") line(style.yellow("⚠ the response hit the output token limit"));
        return;
      }
      case "tool_execution_start": {
        endText();
        const call: RunningCall = { name: event.toolName, summary: summarizeArgs(event.args), startedAt: t, lastReportAt: t };
        running.set(event.toolCallId, call);
        if (spinner) drawStatus();
        else line(style.dim(`→ ${call.name} ${call.summary}`));
        startTimer();
        return;
      }
      case "tool_execution_end": {
        const call = running.get(event.toolCallId);
        running.delete(event.toolCallId);
        awaiting.delete(event.toolCallId);
        stopTimerIfIdle();
        const elapsed = call === undefined ? "" : ` · ${formatDuration(t - call.startedAt)}`;
        const earlierArgs = call === undefined ? argsOfEarlierCall?.(event.toolCallId) : undefined;
        const summary = call?.summary ?? (earlierArgs === undefined ? "" : summarizeArgs(earlierArgs));
        const head = `${event.toolName} ${summary}`.trimEnd();
        const result = summarizeResult(event.result as AgentToolResult<unknown>, SUMMARY_MAX_CHARS, event.isError);
        line(event.isError ? style.red(`✗ ${head}${elapsed} · ${result}`) : `${style.green("✓")} ${head}${style.dim(`${elapsed} · ${result}`)}`);
        return;
      }
      case "approval_requested":
        endText();
        awaiting.add(event.toolCallId);
        line(style.yellow(`? ${event.toolName} ${summarizeArgs(event.args)} awaits approval (call ${event.toolCallId})`.replace(/ {2,}/g, " ")));
        return;
      case "warning":
        endText();
        line(style.yellow(`⚠ ${event.message}`));
        return;
      case "compaction_start":
        endText();
        line(style.dim(`⟲ compacting the context (${COMPACTION_REASONS[event.reason]}, ~${event.tokensBefore.toLocaleString("en-US")} tokens)…`));
        return;
      case "compaction_end":
        line(
          style.dim(
            event.compacted
              ? `⟲ compacted: ${event.replaced} messages summarized, ~${event.tokensBefore.toLocaleString("en-US")} → ~${event.tokensAfter.toLocaleString("en-US")} tokens`
              : "⟲ nothing older to compact: the newest turn is kept whole",
          ),
        );
        return;
      case "agent_end":
        endText();
        running.clear();
        awaiting.clear();
        stopTimerIfIdle();
        finalLine(event.exitReason);
        return;
      default:
        return;
    }
  };

  return {
    stats,
    render,
    notice: (text: string) => line(style.yellow(text)),
    approvalAnswered(toolCallId: string, at: number): void {
      awaiting.delete(toolCallId);
      const call = running.get(toolCallId);
      if (call !== undefined) {
        call.startedAt = at;
        call.lastReportAt = at;
      }
      drawStatus();
    },
    close(): void {
      running.clear();
      waitingSince = undefined;
      awaiting.clear();
      stopTimerIfIdle();
      clearStatus();
    },
  };
}

function reasonLabel(reason: ExitReason | undefined): string {
  switch (reason) {
    case undefined:
      return "ended";
    case "maxTurns":
      return "max turns reached";
    case "budget":
      return "budget reached";
    case "invalidCalls":
      return "stopped: the model repeated the same invalid tool call";
    default:
      return reason;
  }
}
