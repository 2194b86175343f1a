/**
 * The `compactContext` actor: the summarizer of `requesting.compacting`. Compacts
 * the transcript it is given with the run's `config.compaction.summarize`, or by
 * default the run's own model through the run's stream function (no tools); the
 * run's abort signal reaches every summary request. Rejects when the summary
 * cannot be written: the run then ends `error` naming the summarizer.
 */
import { fromPromise } from "xstate";
import type { CompactContextInput } from "../../machines/compaction-policy.js";
import { transcriptMessages } from "../../machines/transcript.js";
import { compactTranscript, type CompactionResult } from "../compaction/compact-transcript.js";
import { maxSummaryTokens } from "../compaction/compaction-settings.js";
import { modelSummarizer } from "../compaction/model-summarizer.js";
import type { ServicesSource } from "../run-environment.js";

/** Creates the `compactContext` actor logic of a run. */
export function createCompactContextActor(servicesOf: ServicesSource) {
  return fromPromise<CompactionResult, CompactContextInput>(async ({ input, system }) => {
    const services = servicesOf(system);
    const { config } = services;
    const options = config.compaction ?? {};
    const instructions = [options.instructions, input.instructions].filter((text): text is string => typeof text === "string" && text.trim() !== "").join("\n");
    return compactTranscript({
      messages: transcriptMessages(input.messages),
      systemPrompt: input.systemPrompt,
      keepRecentTokens: input.settings.keepRecentTokens,
      contextWindow: input.settings.contextWindow,
      maxSummaryTokens: maxSummaryTokens(input.settings, input.model.maxTokens),
      ...(instructions !== "" ? { instructions } : {}),
      summarize: options.summarize ?? modelSummarizer(services.streamFn, input.model, config),
      ...(services.signal ? { signal: services.signal } : {}),
    });
  });
}
