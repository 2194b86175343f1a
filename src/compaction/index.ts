/** Context compaction: overflow classification, token estimates, the safe cut, the chunked summarizer, one compaction. */
export { isContextOverflow, isShortLengthStop, overflowWordingOf, FEW_OUTPUT_SHARE } from "./overflow.js";
export { CHARS_PER_TOKEN, estimateContextTokens, estimateMessageTokens, estimateMessagesTokens, estimateTextTokens } from "./estimate-tokens.js";
export { findCutPoint, runningTurnStart, safeCutIndices } from "./cut-point.js";
export { collectFileActivity, type FileActivity } from "./file-activity.js";
export { SUMMARY_HEADER, isSummaryMessage, readSummaryMessage, summaryMessage, type PreviousSummary } from "./summary-message.js";
export { SUMMARIZER_SYSTEM_PROMPT, summarizeHistory, summaryRequestTokens, type SummarizeFn, type SummarizeHistoryOptions, type SummaryRequest } from "./summarize-history.js";
export {
  applyCompaction,
  compactTranscript,
  transcriptTokens,
  type CompactTranscriptOptions,
  type CompactionReason,
  type CompactionResult,
} from "./compact-transcript.js";
export {
  DEFAULT_KEEP_RECENT_TOKENS,
  DEFAULT_RESERVE_TOKENS,
  compactionSettings,
  maxSummaryTokens,
  type CompactionConfig,
  type CompactionSettings,
} from "./compaction-settings.js";
export { modelSummarizer } from "./model-summarizer.js";
