/**
 * `loopchart/xstate`: the loop as XState sees it — the actor of a run, the machines, and
 * what takes or gives XState's own types. Apart from the main entry because these
 * declarations name XState's types: a user who type-checks with `skipLibCheck: false`
 * loads and checks all of XState's declarations (about a second) only when importing
 * from here.
 */
export {
  createAgentLoopActor,
  provideRunActors,
  type AgentLoopActor,
  type CreateAgentLoopActorOptions,
} from "../agent-loop-actor.js";
export {
  agentLoopMachine,
  toolCallMachine,
  type AgentLoopContext,
  type AgentLoopHooks,
  type AgentLoopInput,
  type AgentLoopOutput,
  type ToolCallContext,
} from "../../machines/index.js";
export { toMermaid } from "../inspection/to-mermaid.js";
