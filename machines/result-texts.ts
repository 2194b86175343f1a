/**
 * The fixed texts of the results the loop gives calls it did not run to the end, apart
 * from the charts so that loopchart's main entry can export them without its declarations
 * naming XState's types.
 */

/** Text of the result a call gets when the run was aborted before it could finish. */
export const ABORTED_MESSAGE = "Operation aborted";

/** Text of the result when `beforeToolCall` blocks without a reason. */
export const BLOCKED_MESSAGE = "Tool execution was blocked";

/** Text of the result of a call the user rejected; a reason given follows it. */
export const REJECTED_MESSAGE = "Tool call was rejected";

/** Text of the error result each call of a length-truncated response gets. */
export const LENGTH_TRUNCATION_MESSAGE =
  "The response hit the output token limit before this tool call was complete, so it was not executed. " +
  "Re-issue the call with complete arguments (split large content across several calls if needed).";
