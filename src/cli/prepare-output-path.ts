import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "./usage-error.js";

/**
 * Makes sure `path` (absolute) can be created as a file: its parent directories exist or
 * are created one by one, and the nearest existing ancestor is a writable directory.
 * Synchronous and bounded (no `mkdir({ recursive: true })`, which spins forever under
 * `/proc`). Throws {@link UsageError} naming `option`, the path and why, before any work.
 */
export function prepareOutputPath(option: string, path: string): void {
  const missing: string[] = [];
  let ancestor = dirname(path);
  for (;;) {
    const kind = kindOf(ancestor);
    if (kind === "directory") break;
    if (kind === "other") throw new UsageError(`${option}: cannot write ${path}: ${ancestor} exists and is not a directory.`);
    const parent = dirname(ancestor);
    if (parent === ancestor) break;
    missing.unshift(ancestor);
    ancestor = parent;
  }
  try {
    accessSync(ancestor, constants.W_OK);
  } catch {
    throw new UsageError(`${option}: cannot write ${path}: the directory ${ancestor} is not writable.`);
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory);
    } catch (error) {
      throw new UsageError(`${option}: cannot write ${path}: cannot create the directory ${directory} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
  }
  if (kindOf(path) === "directory") throw new UsageError(`${option}: cannot write ${path}: it is a directory.`);
}

function kindOf(path: string): "directory" | "other" | "missing" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch {
    return "missing";
  }
}
