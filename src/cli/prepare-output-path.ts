import { accessSync, closeSync, constants, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "./usage-error.js";

/** Traces (and sessions) hold prompts, tool output and results: their files are created 0600… */
export const PRIVATE_FILE_MODE = 0o600;
/** …and the directories made for them 0700. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Makes sure `path` (absolute) can be created as a file: its parent directories exist or
 * are created one by one, and the nearest existing ancestor is a writable directory.
 * Synchronous and bounded (no `mkdir({ recursive: true })`, which spins forever under
 * `/proc`). Directories created get `directoryMode` (0700 for traces) when given.
 * Throws {@link UsageError} naming `option`, the path and why, before any work.
 */
export function prepareOutputPath(option: string, path: string, directoryMode?: number): void {
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
      mkdirSync(directory, directoryMode);
    } catch (error) {
      throw new UsageError(`${option}: cannot write ${path}: cannot create the directory ${directory} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
  }
  if (kindOf(path) === "directory") throw new UsageError(`${option}: cannot write ${path}: it is a directory.`);
  checkExistingTarget(option, path);
}

/**
 * An existing regular file must be writable; an existing character device (`/dev/full`,
 * `/dev/null`, a terminal) gets one newline written to it, so a device that refuses
 * writes fails here, before any work, instead of after the run. FIFOs are left alone
 * (opening one blocks until a reader comes).
 */
function checkExistingTarget(option: string, path: string): void {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return;
  }
  try {
    if (stat.isFile()) accessSync(path, constants.W_OK);
    else if (stat.isCharacterDevice()) {
      const fd = openSync(path, "a");
      try {
        writeSync(fd, "\n");
      } finally {
        closeSync(fd);
      }
    }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(`${option}: cannot write ${path}: ${code === undefined ? message : `${code} (${describeCode(code, message)})`}.`);
  }
}

/** The reason part of a Node file-system error message: `ENOSPC: no space left on device, write` → `no space left on device`. */
function describeCode(code: string, message: string): string {
  const match = new RegExp(`^${code}: ([^,]+)`).exec(message);
  return match?.[1] ?? message;
}

function kindOf(path: string): "directory" | "other" | "missing" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch {
    return "missing";
  }
}
