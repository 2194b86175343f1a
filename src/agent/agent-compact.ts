/**
 * `agent.compact(instructions?)`: compacts an idle agent's transcript by hand
 * (pi's `/compact`), with the agent's `compaction` settings (or the defaults for
 * its model) and summarizer, announcing it with `compaction_start` /
 * `compaction_end` (reason `manual`) like a compaction inside a run.
 */
import { compactTranscript, transcriptTokens, type CompactionResult } from "../compaction/compact-transcript.js";
import { assertCompactionConfig, compactionSettings, maxSummaryTokens, type CompactionConfig } from "../compaction/compaction-settings.js";
import { modelSummarizer } from "../compaction/model-summarizer.js";
import { compactionEndEvent } from "../../machines/compaction-policy.js";
import type { AgentEvent, AgentLoopConfig, AgentMessage, Model, StreamFn } from "../types.js";

/** What a manual compaction reads of the agent. */
export interface ManualCompaction {
  messages: readonly AgentMessage[];
  systemPrompt: string;
  model: Model;
  compaction: CompactionConfig | undefined;
  streamFn: StreamFn;
  getApiKey: AgentLoopConfig["getApiKey"];
  convertToLlm: AgentLoopConfig["convertToLlm"];
  instructions?: string;
  signal?: AbortSignal;
  /** Hands an event to the agent (its state and listeners), in order. */
  emit: (event: AgentEvent) => unknown;
  /**
   * Records a compaction that replaced history before `compaction_end` announces it
   * (the session's save); when it rejects, so does the compaction, with no `compaction_end`.
   */
  record?: (result: CompactionResult) => Promise<void>;
}

/**
 * Compacts the agent's transcript (unless the summary would not make it smaller:
 * then `compacted` is false and nothing changes). The `compaction_end` event carries the result;
 * the agent's state applies it. Rejects (after `compaction_start`, with no
 * `compaction_end`) when the summary cannot be written or `record` fails; the transcript is then unchanged.
 */
export async function compactManually(options: ManualCompaction): Promise<CompactionResult> {
  assertCompactionConfig(options.compaction);
  const config = options.compaction ?? {};
  const settings = compactionSettings(config, options.model);
  const instructions = [config.instructions, options.instructions].filter((text): text is string => typeof text === "string" && text.trim() !== "").join("\n");
  await options.emit({ type: "compaction_start", reason: "manual", tokensBefore: transcriptTokens(options.messages, options.systemPrompt) });
  const written = await compactTranscript({
    messages: options.messages,
    systemPrompt: options.systemPrompt,
    keepRecentTokens: settings.keepRecentTokens,
    contextWindow: settings.contextWindow,
    maxSummaryTokens: maxSummaryTokens(settings, options.model.maxTokens),
    ...(instructions !== "" ? { instructions } : {}),
    summarize: config.summarize ?? modelSummarizer(options.streamFn, options.model, { model: options.model, convertToLlm: options.convertToLlm, getApiKey: options.getApiKey }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const result = written.compacted && written.tokensAfter >= written.tokensBefore ? unchanged(written) : written;
  if (result.compacted && options.record) await options.record(result);
  await options.emit(compactionEndEvent("manual", result));
  return result;
}

/**
 * `result` as no compaction: by hand, a summary that would not make the transcript
 * smaller (a short transcript, a long summary) is not applied.
 */
function unchanged(result: CompactionResult): CompactionResult {
  const { summaryMessage: _dropped, ...rest } = result;
  return { ...rest, compacted: false, replaced: 0, tokensAfter: result.tokensBefore };
}
