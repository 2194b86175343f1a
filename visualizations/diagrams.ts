/** The machines whose diagrams are generated into this folder, and their files. */
import type { AnyStateMachine } from "xstate";
import { agentLoopMachine } from "../machines/agent-loop.machine.js";
import { callGroupMachine } from "../machines/call-group.machine.js";
import { toolCallMachine } from "../machines/tool-call.machine.js";

export const DIAGRAMS: readonly { file: string; machine: AnyStateMachine }[] = [
  { file: "agent-loop.mmd", machine: agentLoopMachine },
  { file: "tool-call.mmd", machine: toolCallMachine },
  { file: "call-group.mmd", machine: callGroupMachine },
];
