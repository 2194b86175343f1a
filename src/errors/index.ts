export { InvalidToolDefinitionError } from "./invalid-tool-definition-error.js";
export { LoopInputError } from "./loop-input-error.js";
export { StreamAlreadyIteratedError } from "./stream-already-iterated-error.js";
export { ToolArgumentsError } from "./tool-arguments-error.js";
export type { ToolArgumentIssue, ToolArgumentsErrorOptions } from "./tool-arguments-error.js";
export { AgentBusyError } from "./agent-busy-error.js";
export { SessionFileError } from "./session-file-error.js";
export { SessionVersionError } from "./session-version-error.js";
export { SessionNotFoundError } from "./session-not-found-error.js";
