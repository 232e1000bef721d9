import { describe, expect, it } from 'vitest';
import { checkDocument, DocumentError, MAX_DOCUMENT_BYTES } from './kyc-document.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const url = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const refusal = (text: string) => {
  try {
    checkDocument(text);
  } catch (err) {
    expect(err).toBeInstanceOf(DocumentError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('KYC document check', () => {
  it('accepts PDF, PNG and JPEG whose bytes match the declared type', () => {
    expect(checkDocument(url('application/pdf', PDF)).mimeType).toBe('application/pdf');
    expect(checkDocument(url('image/png', PNG)).bytes.equals(PNG)).toBe(true);
    expect(checkDocument(url('image/jpeg', JPEG)).mimeType).toBe('image/jpeg');
    expect(checkDocument(`data:image/png;name=id.png;base64,${PNG.toString('base64')}`).mimeType).toBe('image/png');
  });

  it('refuses an executable declared as a PDF, naming what it is', () => {
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0x90)]);
    expect(refusal(url('application/pdf', exe))).toMatch(/Windows executable/);
    expect(refusal(url('application/pdf', Buffer.from('\x7fELF\x02\x01\x01', 'latin1')))).toMatch(/ELF executable/);
  });

  it('refuses a declared type that does not match the content', () => {
    expect(refusal(url('application/pdf', PNG))).toMatch(/does not match the content, which is image\/png/);
  });

  it('refuses bad base64, a missing data: prefix, other types and a non-base64 data URL', () => {
    expect(refusal('data:application/pdf;base64,JVBERi0x*4K')).toMatch(/valid base64/);
    expect(refusal('data:application/pdf;base64,JVBERi0')).toMatch(/valid base64/);
    expect(refusal(PDF.toString('base64'))).toMatch(/data URL/);
    expect(refusal(url('text/html', PDF))).toMatch(/not accepted/);
    expect(refusal('data:application/pdf,%PDF-1.4')).toMatch(/base64-encoded/);
    expect(refusal('data:image/png;base64,')).toMatch(/empty/);
  });

  it('refuses a document over 10 MiB decoded, and accepts one of exactly 10 MiB', () => {
    const big = Buffer.alloc(MAX_DOCUMENT_BYTES + 1);
    PDF.copy(big);
    expect(refusal(url('application/pdf', big))).toMatch(/larger than 10 MiB/);
    expect(checkDocument(url('application/pdf', big.subarray(0, MAX_DOCUMENT_BYTES))).bytes.length).toBe(MAX_DOCUMENT_BYTES);
  });
});
