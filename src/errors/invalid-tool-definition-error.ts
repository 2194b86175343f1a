/**
 * A tool definition cannot be used: its name is missing or its `parameters` is not
 * an object schema. Thrown synchronously by `assertToolParameters` and `defineTool`;
 * the message names the tool and the fix.
 */
export class InvalidToolDefinitionError extends Error {
  override readonly name = "InvalidToolDefinitionError";
  /** The tool's name as given (may be empty when the name itself is the problem). */
  readonly toolName: string;

  constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.toolName = toolName;
  }
}
