/** One reason the arguments of a tool call failed validation. */
export interface ToolArgumentIssue {
  /** JSON Pointer of the failing value (`/todo/0/title`), or `(root)` for the arguments object itself. */
  path: string;
  /** What is wrong there, e.g. `must be number`. */
  message: string;
}

/** Constructor options of {@link ToolArgumentsError}. */
export interface ToolArgumentsErrorOptions {
  toolName: string;
  issues: readonly ToolArgumentIssue[];
  /** The arguments as the model sent them, before coercion. */
  received: unknown;
}

/**
 * The arguments of a tool call do not match the tool's parameter schema.
 *
 * The message is written for the model, which reads it as the error result:
 *
 * ```text
 * Validation failed for tool "read":
 *   - /path: must be string
 *   - /limit: must be number
 *
 * Received arguments:
 * {
 *   "path": 42,
 *   "limit": "ten"
 * }
 * ```
 */
export class ToolArgumentsError extends Error {
  override readonly name = "ToolArgumentsError";
  readonly toolName: string;
  readonly issues: readonly ToolArgumentIssue[];
  readonly received: unknown;

  constructor({ toolName, issues, received }: ToolArgumentsErrorOptions) {
    super(formatToolArgumentsMessage(toolName, issues, received));
    this.toolName = toolName;
    this.issues = issues;
    this.received = received;
  }
}

/** Indentation of the pretty-printed received arguments. */
const RECEIVED_JSON_INDENT = 2;

function formatToolArgumentsMessage(toolName: string, issues: readonly ToolArgumentIssue[], received: unknown): string {
  const lines = issues.map((issue) => `  - ${issue.path}: ${issue.message}`);
  return `Validation failed for tool "${toolName}":\n${lines.join("\n")}\n\nReceived arguments:\n${stringifyReceived(received)}`;
}

/** Pretty JSON of what the model sent; never throws (cycles and bigints fall back to `String`). */
function stringifyReceived(received: unknown): string {
  try {
    return JSON.stringify(received, null, RECEIVED_JSON_INDENT) ?? String(received);
  } catch {
    return String(received);
  }
}
