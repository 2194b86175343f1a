/**
 * Image detection by magic bytes and downscaling of images too large to send.
 */

/** Image types `read` returns as image blocks. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Longest side, in pixels, of an image sent to the model; larger ones are downscaled. */
export const IMAGE_MAX_DIMENSION = 2000;
/** Largest encoded image, in bytes, sent to the model; larger ones are re-encoded smaller. */
export const IMAGE_MAX_BYTES = 4.5 * 1024 * 1024;
const JPEG_FALLBACK_QUALITY = 80;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(data: Buffer, bytes: readonly number[], offset = 0): boolean {
  if (data.length < offset + bytes.length) return false;
  return bytes.every((b, i) => data[offset + i] === b);
}

function startsWithAscii(data: Buffer, text: string, offset = 0): boolean {
  return data.length >= offset + text.length && data.toString("latin1", offset, offset + text.length) === text;
}

/** The image type of `data` from its first bytes, whatever the file is named; `undefined` when not an image we send. */
export function detectImageMimeType(data: Buffer): ImageMimeType | undefined {
  if (startsWith(data, PNG_SIGNATURE)) return "image/png";
  if (startsWith(data, JPEG_SIGNATURE)) return "image/jpeg";
  if (startsWithAscii(data, "GIF87a") || startsWithAscii(data, "GIF89a")) return "image/gif";
  if (startsWithAscii(data, "RIFF") && startsWithAscii(data, "WEBP", 8)) return "image/webp";
  return undefined;
}

/** An image ready to send, and what was done to it. */
export interface PreparedImage {
  data: Buffer;
  mimeType: ImageMimeType;
  /** Set when the image was downscaled or re-encoded. */
  resized?: { fromWidth: number; fromHeight: number; toWidth: number; toHeight: number };
}

/**
 * Downscales an image whose longer side exceeds {@link IMAGE_MAX_DIMENSION} or whose size
 * exceeds {@link IMAGE_MAX_BYTES} (keeping the aspect ratio, with `sharp`); other images
 * come back unchanged. Throws when the image cannot be decoded.
 */
export async function prepareImage(data: Buffer, mimeType: ImageMimeType): Promise<PreparedImage> {
  const { default: sharp } = await import("sharp");
  const metadata = await sharp(data).metadata();
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  if (Math.max(width, height) <= IMAGE_MAX_DIMENSION && data.length <= IMAGE_MAX_BYTES) return { data, mimeType };

  const pipeline = sharp(data).resize({ width: IMAGE_MAX_DIMENSION, height: IMAGE_MAX_DIMENSION, fit: "inside", withoutEnlargement: true });
  let out = await (mimeType === "image/jpeg" ? pipeline.jpeg() : mimeType === "image/webp" ? pipeline.webp() : pipeline.png()).toBuffer({ resolveWithObject: true });
  let outType: ImageMimeType = mimeType === "image/gif" ? "image/png" : mimeType;
  if (out.data.length > IMAGE_MAX_BYTES) {
    out = await sharp(out.data).jpeg({ quality: JPEG_FALLBACK_QUALITY }).toBuffer({ resolveWithObject: true });
    outType = "image/jpeg";
  }
  return {
    data: out.data,
    mimeType: outType,
    resized: { fromWidth: width, fromHeight: height, toWidth: out.info.width, toHeight: out.info.height },
  };
}
