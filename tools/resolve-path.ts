/**
 * Turns a path the model wrote into an absolute path, and enforces confinement.
 */
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FileSystemOperations } from "./file-system-operations.js";
import { PathOutsideRootError } from "./path-outside-root-error.js";

/** Options every tool accepts for where its paths may go. */
export interface PathOptions {
  /**
   * Confine every path to the tool's `cwd`: a path that leaves it by `..`, by being
   * absolute elsewhere, or through a symbolic link is refused with a
   * {@link PathOutsideRootError}. Default false.
   * @example createReadTool("/repo", { confine: true })
   */
  confine?: boolean;
  /**
   * Confine every path to this directory instead of `cwd` (implies `confine`).
   * @example createWriteTool("/repo/pkg", { root: "/repo" })
   */
  root?: string;
}

/** Expands `~` and `~/…` to the home directory and resolves the rest against `cwd`. */
export function expandPath(cwd: string, input: string): string {
  let path = input;
  if (path === "~") path = homedir();
  else if (path.startsWith("~/")) path = join(homedir(), path.slice(2));
  return resolve(cwd, path);
}

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The canonical form of `path`: its deepest existing ancestor resolved through symlinks, plus the rest. */
async function canonical(path: string, fs: Pick<FileSystemOperations, "realpath">): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch (error) {
      if (error instanceof PathOutsideRootError && error.via === "symlink") throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

/**
 * Resolves `input` against `cwd` (`~` expanded). With `confine` or `root` set, throws a
 * {@link PathOutsideRootError} when the result, or the file a symbolic link on its way
 * points to, lies outside the root.
 */
export async function resolveToolPath(
  cwd: string,
  input: string,
  options: PathOptions,
  fs: Pick<FileSystemOperations, "realpath">,
): Promise<string> {
  const absolute = expandPath(cwd, input);
  if (!options.confine && options.root === undefined) return absolute;
  const root = resolve(cwd, options.root ?? cwd);
  if (!isInside(root, absolute)) throw new PathOutsideRootError(input, root, "path");
  const [realRoot, realTarget] = await Promise.all([canonical(root, fs), canonical(absolute, fs)]);
  if (!isInside(realRoot, realTarget)) throw new PathOutsideRootError(input, root, "symlink");
  return absolute;
}
