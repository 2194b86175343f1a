/**
 * The `InvalidToolDefinitionError` that `run` throws; fails the test when it
 * throws something else or nothing.
 */
import { InvalidToolDefinitionError } from "../../src/errors/index.js";

export function definitionError(run: () => unknown): InvalidToolDefinitionError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidToolDefinitionError) return error;
    throw error;
  }
  throw new Error("expected an InvalidToolDefinitionError");
}
