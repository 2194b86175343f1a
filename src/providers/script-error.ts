/**
 * Thrown by {@link import("./load-script.js").loadScript} when a script cannot be
 * found, is not JSON, or does not match the script schema. The message names the
 * script and the bad entry, e.g. `demo.json: responses[2].content[0].arguments: expected object or string`.
 */
export class ScriptError extends Error {
  override readonly name = "ScriptError" as const;

  constructor(
    message: string,
    /** Where the entry sits, e.g. `responses[2].content[0].arguments`; empty for whole-file problems. */
    readonly entryPath: string = "",
  ) {
    super(message);
  }
}
