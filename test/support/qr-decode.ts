// Two QR decoders independent of the encoder (`qrcode`): jsQR (pure JavaScript, always there after npm install)
// and zbarimg (the zbar C library, when installed) as a second opinion.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsqrModule from 'jsqr';
import { PNG } from 'pngjs';

type JsQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
// jsqr is a CommonJS bundle whose function is `exports.default`: Node's ESM import sees the exports object.
const jsQR = ((jsqrModule as unknown as { default?: JsQr }).default ?? jsqrModule) as JsQr;

/** The text of the QR code in a PNG, read by jsQR; null when it finds none. */
export function decodeQrJs(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  const pixels = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length);
  return jsQR(pixels, image.width, image.height)?.data ?? null;
}

/** The text of the QR code in a PNG, read by zbarimg; null when it finds none. */
export function decodeQrZbar(png: Buffer): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'qr-'));
  try {
    const file = join(dir, 'code.png');
    writeFileSync(file, png);
    try {
      return execFileSync('zbarimg', ['--raw', '-q', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).replace(/\n$/, '');
    } catch {
      return null; // zbarimg exits non-zero when it finds no symbol
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
