/**
 * loopchart's built-in coding tools: read, bash, edit, write, grep, find, ls, the
 * truncation helpers they share, and the operations interfaces that let them run
 * against another filesystem.
 */
export { createReadTool, readSchema, type ReadToolInput, type ReadToolDetails, type ReadToolOptions, type ReadOperations } from "./read.js";
export { createBashTool, bashSchema, BASH_UPDATE_INTERVAL_MS, type BashToolInput, type BashToolDetails, type BashToolOptions } from "./bash.js";
export { localBashOperations, type BashOperations, type BashExecOptions, type BashExecResult } from "./bash-operations.js";
export { createEditTool, editSchema, prepareEditArguments, EDIT_DIFF_CONTEXT_LINES, type EditToolInput, type EditToolDetails, type EditToolOptions, type EditOperations } from "./edit.js";
export { createWriteTool, writeSchema, type WriteToolInput, type WriteToolDetails, type WriteToolOptions, type WriteOperations } from "./write.js";
export { createGrepTool, grepSchema, DEFAULT_GREP_LIMIT, type GrepToolInput, type GrepToolDetails, type GrepToolOptions, type GrepOperations } from "./grep.js";
export { createFindTool, findSchema, DEFAULT_FIND_LIMIT, type FindToolInput, type FindToolDetails, type FindToolOptions, type FindOperations } from "./find.js";
export { createLsTool, lsSchema, DEFAULT_LS_LIMIT, type LsToolInput, type LsToolDetails, type LsToolOptions, type LsOperations } from "./ls.js";
export { createCodingTools, createAllTools, createReadOnlyTools, type ToolSetOptions } from "./tool-sets.js";
export {
  DEFAULT_MAX_LINES,
  DEFAULT_MAX_BYTES,
  GREP_MAX_LINE_LENGTH,
  LINE_TRUNCATION_MARKER,
  truncateHead,
  truncateTail,
  truncateLine,
  formatSize,
  type TruncationOptions,
  type TruncationResult,
  type LineTruncationResult,
} from "./truncate.js";
export { localFileSystem, fileReader, readAllFrom, type FileSystemOperations, type FileEntry, type FileStat, type FileReader } from "./file-system-operations.js";
export { createConfinedFileSystem, fileSystemFor, supportsDescriptorConfinement, MAX_SYMLINK_HOPS } from "./confined-file-system.js";
export { resolveToolPath, expandPath, type PathOptions } from "./resolve-path.js";
export { PathOutsideRootError } from "./path-outside-root-error.js";
export { withFileMutationQueue } from "./file-mutation-queue.js";
export { writeFileAtomic, tempPathFor } from "./atomic-write.js";
export {
  replaceIfUnchanged,
  FileChangedError,
  CARRY_OVER_INTERVAL_MS,
  CARRY_OVER_QUIET_LOOKS,
  ACTIVE_WRITER_WINDOW_MS,
  type ReplaceOperations,
} from "./replace-if-unchanged.js";
export {
  detectImageMimeType,
  loadSharp,
  prepareImage,
  IMAGE_LIBRARY_INSTALL_HINT,
  IMAGE_MAX_DIMENSION,
  IMAGE_MAX_BYTES,
  type ImageLibrary,
  type ImageLibraryLoader,
  type ImageMimeType,
  type ImagePipeline,
  type PreparedImage,
} from "./image.js";
export { walkTree, type WalkEntry, type WalkOperations } from "./walk.js";
export { findRipgrep, findFd, type SearchBackend } from "./external-command.js";
export { OPERATION_ABORTED } from "./abort.js";
