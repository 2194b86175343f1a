/**
 * The outcome of checking a value a user function returned: the value to go on
 * with, or a sentence saying what was wrong (failures as data; the caller decides
 * whether the text becomes an error result, an error response or a thrown error).
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** A passed check. */
export const passed = <T>(value: T): Checked<T> => ({ ok: true, value });

/** A failed check with the text that explains it. */
export const failed = <T>(error: string): Checked<T> => ({ ok: false, error });
