import { describe, it, expect } from 'vitest';
import { paymentUri, renderQrPng } from './qr-code.ts';
import { decodeQrJs, decodeQrZbar } from '../../test/support/qr-decode.ts';
import { hasTool } from '../../test/support/system-tools.ts';

/** Read back by jsQR, a decoder independent of the encoder that comes with npm install. */
function decodePng(png: Buffer): string | null {
  return decodeQrJs(png);
}

const pngSize = (png: Buffer): [number, number] => [png.readUInt32BE(16), png.readUInt32BE(20)];

describe('payment URI', () => {
  it.each([
    ['0.00050000', 'bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT?amount=0.0005'],
    ['1', 'bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT?amount=1'],
    ['1.0', 'bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT?amount=1'],
    ['0.00000001', 'bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT?amount=0.00000001'],
    ['00012.34500', 'bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT?amount=12.345'],
  ])('%s BTC is written exactly', (amount, uri) => {
    expect(paymentUri('1BoatSLRHtKNngkdXEeobR76b53LETtpyT', amount)).toBe(uri);
  });

  it('refuses amounts that are not exact positive satoshi amounts', () => {
    for (const bad of ['0', '1e-4', '-1', '0.000000001', 'abc', '']) {
      expect(() => paymentUri('1BoatSLRHtKNngkdXEeobR76b53LETtpyT', bad), bad).toThrow(RangeError);
    }
  });

  it('refuses an address that would need escaping', () => {
    expect(() => paymentUri('1Boat?amount=9', '1')).toThrow(RangeError);
  });
});

describe('QR PNG', () => {
  const uri = paymentUri('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', '0.00123456');

  it('decodes back to exactly the payment URI at the default width', async () => {
    const png = await renderQrPng(uri);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(pngSize(png)).toEqual([256, 256]);
    expect(decodePng(png)).toBe(uri);
  });

  it.each([64, 65, 66, 69, 97, 300, 777, 1024])('decodes at %s px, exactly that wide', async (width) => {
    const png = await renderQrPng(uri, width);
    expect(pngSize(png)).toEqual([width, width]);
    expect(decodePng(png)).toBe(uri);
  });

  it('every small width, where modules are one or two pixels, decodes', async () => {
    const failed: number[] = [];
    for (let width = 64; width <= 96; width++) {
      if (decodePng(await renderQrPng(uri, width)) !== uri) failed.push(width);
    }
    expect(failed).toEqual([]);
  });

  it('a taproot testnet URI decodes too', async () => {
    const tr = paymentUri('tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', '21000000');
    expect(decodePng(await renderQrPng(tr, 128))).toBe(tr);
  });

  it('text too long for the width is refused', async () => {
    await expect(renderQrPng('x'.repeat(1500), 64)).rejects.toThrow(RangeError);
  });

  it('refuses widths outside 64..1024', async () => {
    for (const width of [63, 1025, 0, -5, 100.5, Number.NaN]) {
      await expect(renderQrPng(uri, width), String(width)).rejects.toThrow(RangeError);
    }
  });
});

// A second decoder (the zbar C library) must read the same codes; it needs Debian's zbar-tools.
describe.skipIf(!hasTool('zbarimg', 'zbar-tools'))('QR PNG read by zbarimg', () => {
  const uri = paymentUri('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', '0.00123456');

  it('decodes to the same payment URI at every width from 64 to 96 px and at 256, 300 and 1024', async () => {
    const failed: number[] = [];
    for (const width of [...Array.from({ length: 33 }, (_, i) => 64 + i), 256, 300, 1024]) {
      if (decodeQrZbar(await renderQrPng(uri, width)) !== uri) failed.push(width);
    }
    expect(failed).toEqual([]);
  });
});
