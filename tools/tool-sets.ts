/**
 * The ready-made sets of tools.
 */
import type { AgentTool } from "../src/types.js";
import { createBashTool, type BashToolOptions } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createFindTool, type FindToolOptions } from "./find.js";
import { createGrepTool, type GrepToolOptions } from "./grep.js";
import { createLsTool, type LsToolOptions } from "./ls.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import type { PathOptions } from "./resolve-path.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

/**
 * Options of the tool-set factories: the path options apply to every tool; each tool's
 * own options (which win over them) sit under its name.
 * @example createCodingTools("/repo", { confine: true, bash: { defaultTimeout: 120 } })
 */
export interface ToolSetOptions extends PathOptions {
  read?: ReadToolOptions;
  bash?: BashToolOptions;
  edit?: EditToolOptions;
  write?: WriteToolOptions;
  grep?: GrepToolOptions;
  find?: FindToolOptions;
  ls?: LsToolOptions;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a set mixes tools of different schemas, like AgentContext.tools
type AnyAgentTool = AgentTool<any, any>;

function shared(options: ToolSetOptions): PathOptions {
  return { ...(options.confine !== undefined ? { confine: options.confine } : {}), ...(options.root !== undefined ? { root: options.root } : {}) };
}

/** The default coding set: read, bash, edit, write. */
export function createCodingTools(cwd: string, options: ToolSetOptions = {}): AnyAgentTool[] {
  const base = shared(options);
  return [
    createReadTool(cwd, { ...base, ...options.read }),
    createBashTool(cwd, { ...base, ...options.bash }),
    createEditTool(cwd, { ...base, ...options.edit }),
    createWriteTool(cwd, { ...base, ...options.write }),
  ];
}

/** Tools that change nothing: read, grep, find, ls. */
export function createReadOnlyTools(cwd: string, options: ToolSetOptions = {}): AnyAgentTool[] {
  const base = shared(options);
  return [
    createReadTool(cwd, { ...base, ...options.read }),
    createGrepTool(cwd, { ...base, ...options.grep }),
    createFindTool(cwd, { ...base, ...options.find }),
    createLsTool(cwd, { ...base, ...options.ls }),
  ];
}

/** Every built-in tool: read, bash, edit, write, grep, find, ls. */
export function createAllTools(cwd: string, options: ToolSetOptions = {}): AnyAgentTool[] {
  const base = shared(options);
  return [
    ...createCodingTools(cwd, options),
    createGrepTool(cwd, { ...base, ...options.grep }),
    createFindTool(cwd, { ...base, ...options.find }),
    createLsTool(cwd, { ...base, ...options.ls }),
  ];
}
