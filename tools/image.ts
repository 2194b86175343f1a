/**
 * Image detection by magic bytes and downscaling of images too large to send. The
 * downscaling uses `sharp`, an optional dependency loaded on first use: without it,
 * images within {@link IMAGE_MAX_BYTES} are sent as they are and larger ones are
 * refused with a message saying how to install it.
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
  /** True when its pixel size could not be checked: no image library (sharp) is installed. */
  unchecked?: true;
}

/** The part of `sharp`'s chainable API {@link prepareImage} uses. */
export interface ImagePipeline {
  metadata(): Promise<{ width?: number; height?: number }>;
  resize(options: { width: number; height: number; fit: "inside"; withoutEnlargement: boolean }): ImagePipeline;
  jpeg(options?: { quality?: number }): ImagePipeline;
  webp(): ImagePipeline;
  png(): ImagePipeline;
  toBuffer(options: { resolveWithObject: true }): Promise<{ data: Buffer; info: { width: number; height: number } }>;
}

/** An image library: `sharp`'s default export, or anything with the same shape. */
export type ImageLibrary = (input: Buffer) => ImagePipeline;

/** Loads the image library, or answers `"absent"` when it is not installed. Must not throw. */
export type ImageLibraryLoader = () => Promise<ImageLibrary | "absent">;

/** What to install to get image downscaling. */
export const IMAGE_LIBRARY_INSTALL_HINT = "npm install sharp";

/**
 * The default {@link ImageLibraryLoader}: imports the optional dependency `sharp` on
 * first use; `"absent"` when it is not installed or its native part does not load.
 */
export const loadSharp: ImageLibraryLoader = async () => {
  try {
    const { default: sharp } = await import("sharp");
    return sharp;
  } catch {
    return "absent";
  }
};

/**
 * Downscales an image whose longer side exceeds {@link IMAGE_MAX_DIMENSION} or whose size
 * exceeds {@link IMAGE_MAX_BYTES} (keeping the aspect ratio); other images come back
 * unchanged. Without an image library (`loadLibrary` answers `"absent"`), an image within
 * the byte limit comes back unchanged marked `unchecked`, and a larger one throws an
 * error saying to install sharp. Throws when the image cannot be decoded.
 */
export async function prepareImage(data: Buffer, mimeType: ImageMimeType, loadLibrary: ImageLibraryLoader = loadSharp): Promise<PreparedImage> {
  const sharp = await loadLibrary();
  if (sharp === "absent") {
    if (data.length <= IMAGE_MAX_BYTES) return { data, mimeType, unchecked: true };
    throw new Error(
      `The image is ${(data.length / 1024 / 1024).toFixed(1)} MB, over the ${IMAGE_MAX_BYTES / 1024 / 1024} MB that can be sent, ` +
        `and downscaling it needs the optional package sharp, which is not installed (${IMAGE_LIBRARY_INSTALL_HINT}).`,
    );
  }
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
