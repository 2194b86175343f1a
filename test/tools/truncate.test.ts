import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, GREP_MAX_LINE_LENGTH, formatSize, truncateHead, truncateLine, truncateTail } from "../../tools/index.js";

const lines = (n: number, prefix = "line"): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join("\n");

describe("truncation helpers", () => {
  it("exports the documented limits", () => {
    expect(DEFAULT_MAX_LINES).toBe(2000);
    expect(DEFAULT_MAX_BYTES).toBe(51200);
    expect(GREP_MAX_LINE_LENGTH).toBe(500);
  });

  it("formats sizes for the model", () => {
    expect(formatSize(512)).toBe("512B");
    expect(formatSize(51200)).toBe("50.0KB");
    expect(formatSize(1.5 * 1024 * 1024)).toBe("1.5MB");
  });

  it("truncateHead leaves short text untouched", () => {
    const r = truncateHead("a\nb");
    expect(r).toMatchObject({ content: "a\nb", truncated: false, truncatedBy: null, totalLines: 2, outputLines: 2 });
  });

  it("truncateHead keeps the first 2000 lines and says it cut by lines", () => {
    const r = truncateHead(lines(3000));
    expect(r.truncated).toBe(true);
    expect(r.truncatedBy).toBe("lines");
    expect(r.outputLines).toBe(2000);
    expect(r.totalLines).toBe(3000);
    expect(r.content.split("\n").at(-1)).toBe("line 2000");
  });

  it("truncateHead cuts by bytes in whole lines, never half a line", () => {
    const text = lines(1000, "x".repeat(100));
    const r = truncateHead(text);
    expect(r.truncatedBy).toBe("bytes");
    expect(r.outputBytes).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(text.startsWith(r.content + "\n")).toBe(true);
  });

  it("truncateHead returns empty content and flags a first line above the byte limit", () => {
    const r = truncateHead("y".repeat(DEFAULT_MAX_BYTES + 1) + "\nshort");
    expect(r).toMatchObject({ content: "", truncated: true, firstLineExceedsLimit: true, outputLines: 0 });
  });

  it("truncateTail keeps the last whole lines", () => {
    const r = truncateTail(lines(3000));
    expect(r.outputLines).toBe(2000);
    expect(r.content.split("\n")[0]).toBe("line 1001");
    expect(r.lastLinePartial).toBe(false);
  });

  it("truncateTail keeps the last bytes of an oversized last line on a UTF-8 boundary", () => {
    const r = truncateTail("head\n" + "é".repeat(DEFAULT_MAX_BYTES));
    expect(r.lastLinePartial).toBe(true);
    expect(r.content).toMatch(/^é+$/);
    expect(r.outputBytes).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(r.content.includes("\uFFFD")).toBe(false);
  });

  it("truncateLine caps at 500 characters without splitting a surrogate pair", () => {
    expect(truncateLine("short")).toEqual({ text: "short", wasTruncated: false });
    const cut = truncateLine("a".repeat(499) + "😀" + "b".repeat(10));
    expect(cut.wasTruncated).toBe(true);
    expect(cut.text).toBe("a".repeat(499) + "... [truncated]");
    expect(truncateLine("c".repeat(600)).text).toBe("c".repeat(500) + "... [truncated]");
  });
});
