/** What an `Agent` run starts from (its own module, so the public declarations that name it import no XState types). */
import type { AgentMessage } from "../types.js";

/** A run to start: new prompt messages, a continuation of the transcript as it is, or a durable session's unfinished run. */
export type AgentRunRequest =
  | { kind: "prompt"; messages: AgentMessage[]; skipInitialSteeringPoll?: boolean; onStarted?: () => void }
  | { kind: "continue" }
  | { kind: "restore"; onStarted?: () => void };
