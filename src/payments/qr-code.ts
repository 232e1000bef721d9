// The payment QR code of operation 28: a BIP 21 URI `bitcoin:<address>?amount=<btc>` as PNG.
// The symbol comes from `qrcode`; the PNG is drawn here so that every module is a whole
// number of pixels at any requested width (fractional scaling makes small codes unreadable).

import { deflateSync, crc32 } from 'node:zlib';
import QRCode from 'qrcode';
import { normalizeDecimal } from '../money/decimal.ts';
import { btcFromSats, satsFromBtc } from '../money/money.ts';

export const QR_DEFAULT_WIDTH = 256;
export const QR_MIN_WIDTH = 64;
export const QR_MAX_WIDTH = 1024;
/** Quiet zone the QR specification asks for, in modules (kept whenever the width allows). */
const QUIET_MODULES = 4;

/** BIP 21 URI for `address` and a BTC amount, the amount written without trailing zeros or exponent. */
export function paymentUri(address: string, cryptoAmountBtc: string): string {
  // Base58 and bech32 addresses are alphanumeric; anything else would need URI escaping and is a bug upstream.
  if (!/^[A-Za-z0-9]{14,90}$/.test(address)) throw new RangeError(`not a bitcoin address: ${JSON.stringify(address)}`);
  // Normalized first so that zero padding ("00012.34500", "0.000000010") reads as the amount it writes.
  // Throws (RangeError) on exponent, sign or sub-satoshi precision.
  const sats = satsFromBtc(normalizeDecimal(cryptoAmountBtc, { allowLeadingZeros: true }));
  if (sats === 0n) throw new RangeError('payment amount must be positive');
  return `bitcoin:${address}?amount=${btcFromSats(sats)}`;
}

/** PNG of `text` as a QR code (error correction M), exactly `widthPx` square (64..1024, default 256). */
export async function renderQrPng(text: string, widthPx: number = QR_DEFAULT_WIDTH): Promise<Buffer> {
  if (!Number.isInteger(widthPx) || widthPx < QR_MIN_WIDTH || widthPx > QR_MAX_WIDTH) {
    throw new RangeError(`QR width must be an integer from ${QR_MIN_WIDTH} to ${QR_MAX_WIDTH}, got ${widthPx}`);
  }
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const scale = Math.max(1, Math.floor(widthPx / (size + 2 * QUIET_MODULES)));
  if (size * scale > widthPx) throw new RangeError(`text too long for a ${widthPx} px QR code`);
  let offset = Math.floor((widthPx - size * scale) / 2);
  // Measured with zbarimg over widths 64..120: one-pixel modules read reliably only when the
  // symbol starts on an odd pixel. Moving it by one pixel costs nothing.
  if (scale === 1 && offset % 2 === 0) offset += (widthPx - size) % 2 === 1 ? 1 : -1;

  // 8-bit grayscale rows, each led by filter byte 0; white background, black modules.
  const stride = widthPx + 1;
  const raw = Buffer.alloc(stride * widthPx, 0xff);
  for (let y = 0; y < widthPx; y++) raw[y * stride] = 0;
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (!modules.get(r, c)) continue;
      for (let dy = 0; dy < scale; dy++) {
        const start = (offset + r * scale + dy) * stride + 1 + offset + c * scale;
        raw.fill(0, start, start + scale);
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(widthPx, 0);
  header.writeUInt32BE(widthPx, 4);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, grayscale, deflate, adaptive filtering, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
