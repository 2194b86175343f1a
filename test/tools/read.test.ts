import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool, loadSharp } from "../../tools/index.js";
import type { ImageContent, TextContent } from "../../src/types.js";
import { createTempWorkspace, type TempWorkspace } from "../helpers/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
  ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

const textOf = (content: (TextContent | ImageContent)[]): string => content.filter((c): c is TextContent => c.type === "text").map((c) => c.text).join("");

async function read(args: { path: string; offset?: number; limit?: number }): Promise<string> {
  const result = await createReadTool(ws.dir).execute("t", args);
  return textOf(result.content);
}

describe("read", () => {
  it("reads a 3000-line file in pages by following the notices to the end", async () => {
    const all = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`);
    ws.write("big.txt", all.join("\n") + "\n");
    const seen: string[] = [];
    let offset: number | undefined;
    const notices: string[] = [];
    for (let page = 0; page < 10; page++) {
      const text = await read({ path: "big.txt", ...(offset ? { offset } : {}) });
      const match = /\n\n\[Showing lines (\d+)-(\d+) of (\d+)\. Use offset=(\d+) to continue\.\]$/.exec(text);
      if (!match) {
        seen.push(...text.split("\n"));
        break;
      }
      notices.push(match[0].trim());
      seen.push(...text.slice(0, match.index).split("\n"));
      offset = Number(match[4]);
    }
    expect(notices).toEqual(["[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]"]);
    expect(seen).toEqual(all);
  });

  it("says how many lines remain when the caller's limit left some", async () => {
    ws.write("f.txt", "a\nb\nc\nd\ne");
    expect(await read({ path: "f.txt", offset: 2, limit: 2 })).toBe("b\nc\n\n[2 more lines in file. Use offset=4 to continue.]");
  });

  it("names the byte limit when bytes cut first", async () => {
    ws.write("wide.txt", Array.from({ length: 1000 }, (_, i) => `${i + 1} ${"w".repeat(200)}`).join("\n"));
    const text = await read({ path: "wide.txt" });
    const notice = /\[Showing lines 1-(\d+) of 1000 \(50\.0KB limit\)\. Use offset=(\d+) to continue\.\]$/.exec(text);
    expect(notice).not.toBeNull();
    expect(Number(notice?.[2])).toBe(Number(notice?.[1]) + 1);
  });

  it("suggests bash for a 200 KB single-line file", async () => {
    ws.write("one.txt", "z".repeat(200 * 1024));
    expect(await read({ path: "one.txt" })).toBe("[Line 1 is 200.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' one.txt | head -c 51200]");
  });

  it("refuses an offset past the end", async () => {
    ws.write("s.txt", "1\n2\n3\n");
    await expect(read({ path: "s.txt", offset: 10 })).rejects.toThrow("Offset 10 is beyond end of file (3 lines total)");
  });

  it("refuses a binary file with a hint", async () => {
    ws.write("blob.bin", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0]));
    await expect(read({ path: "blob.bin" })).rejects.toThrow(/blob\.bin is a binary file \(10B\).*xxd/);
  });

  it("reports a missing file", async () => {
    await expect(read({ path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
  });

  it("returns a PNG named .txt as an image, detected by its bytes", async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: "blue" } }).png().toBuffer();
    ws.write("picture.txt", png);
    const result = await createReadTool(ws.dir).execute("t", { path: "picture.txt" });
    expect(result.content[0]).toEqual({ type: "text", text: "Read image file [image/png]" });
    const image = result.content[1] as ImageContent;
    expect(image.type).toBe("image");
    expect(image.mimeType).toBe("image/png");
    expect(Buffer.from(image.data, "base64").equals(png)).toBe(true);
  });

  it("downscales an oversized image", async () => {
    const jpeg = await sharp({ create: { width: 3000, height: 1500, channels: 3, background: "red" } }).jpeg().toBuffer();
    ws.write("wide.jpg", jpeg);
    const result = await createReadTool(ws.dir).execute("t", { path: "wide.jpg" });
    expect(textOf(result.content)).toBe("Read image file [image/jpeg] (downscaled from 3000x1500 to 2000x1000)");
    const meta = await sharp(Buffer.from((result.content[1] as ImageContent).data, "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([2000, 1000]);
  });

  it("sends an image unchanged and says its size was not checked when sharp is absent", async () => {
    const png = await sharp({ create: { width: 3000, height: 10, channels: 3, background: "blue" } }).png().toBuffer();
    ws.write("wide.png", png);
    const result = await createReadTool(ws.dir, { loadImageLibrary: async () => "absent" }).execute("t", { path: "wide.png" });
    expect(textOf(result.content)).toBe(
      "Read image file [image/png] (size not checked against the 2000 px limit: the optional package sharp is not installed; npm install sharp)",
    );
    expect(Buffer.from((result.content[1] as ImageContent).data, "base64").equals(png)).toBe(true);
  });

  it("refuses an image over 4.5 MB, saying to install sharp, when sharp is absent", async () => {
    const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(5 * 1024 * 1024, 1)]);
    ws.write("huge.jpg", big);
    await expect(createReadTool(ws.dir, { loadImageLibrary: async () => "absent" }).execute("t", { path: "huge.jpg" })).rejects.toThrow(
      "The image is 5.0 MB, over the 4.5 MB that can be sent, and downscaling it needs the optional package sharp, which is not installed (npm install sharp).",
    );
  });

  it("loads sharp only when an image is read", async () => {
    let loads = 0;
    const counting = async () => {
      loads += 1;
      return loadSharp();
    };
    ws.write("plain.txt", "hello\n");
    await createReadTool(ws.dir, { loadImageLibrary: counting }).execute("t", { path: "plain.txt" });
    expect(loads).toBe(0);
  });

  it("throws Operation aborted when the signal has fired", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createReadTool(ws.dir).execute("t", { path: "x" }, controller.signal)).rejects.toThrow("Operation aborted");
  });

  it("writes its limits into the description", () => {
    const { description } = createReadTool(ws.dir);
    expect(description).toContain("2000 lines");
    expect(description).toContain("50.0KB");
  });
});
