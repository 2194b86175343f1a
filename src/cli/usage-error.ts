/**
 * A mistake in how the CLI was called: an unknown option, a missing prompt, a model
 * that cannot be resolved. The CLI prints the message (which says what was expected)
 * and exits with {@link EXIT_CODES.usage}.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";

  constructor(message: string) {
    super(message);
  }
}
