/**
 * Glob matching shared by `grep` and `find`, with the meaning rg and fd give a glob:
 * a pattern without `/` matches the file name at any depth; a pattern with `/` matches
 * the path relative to the search directory. `*` matches leading dots too.
 */
import picomatch from "picomatch";

/** A predicate over `/`-separated relative paths (no trailing slash). */
export function createGlobMatcher(pattern: string): (relativePath: string) => boolean {
  const match = picomatch(pattern.replace(/^\.\//, ""), { dot: true });
  if (pattern.includes("/")) return (path) => match(path);
  return (path) => match(path.slice(path.lastIndexOf("/") + 1));
}
