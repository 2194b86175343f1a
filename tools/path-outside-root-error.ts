/** Thrown when a tool path leaves the root the tool is confined to, by `..` or through a symbolic link. */
export class PathOutsideRootError extends Error {
  override readonly name = "PathOutsideRootError" as const;

  constructor(
    /** The path as the model gave it. */
    readonly requestedPath: string,
    /** The root the tool is confined to. */
    readonly root: string,
    /** How it escaped. */
    readonly via: "path" | "symlink",
  ) {
    super(
      via === "symlink"
        ? `Path "${requestedPath}" leads outside the allowed directory ${root} through a symbolic link. Only paths inside ${root} can be used.`
        : `Path "${requestedPath}" is outside the allowed directory ${root}. Only paths inside ${root} can be used.`,
    );
  }
}
