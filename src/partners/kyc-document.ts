// A KYC document arrives as a data: URL. What it is gets decided by its bytes (magic numbers), never by a
// name or the declared type alone, and the declared type must agree with them: an executable renamed
// ".pdf" is refused, and so is a PNG declared as a PDF.

/** Largest decoded document (DESIGN.md section 7). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Document types accepted, by media type. */
export type DocumentType = 'application/pdf' | 'image/png' | 'image/jpeg';

/** Why a document was refused; `message` is said to the partner as is. */
export class DocumentError extends Error {}

/** A checked document. */
export interface CheckedDocument {
  mimeType: DocumentType;
  bytes: Buffer;
}

const ACCEPTED: readonly DocumentType[] = ['application/pdf', 'image/png', 'image/jpeg'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What the first bytes say the content is, or a description of what it is instead. */
export function sniff(bytes: Uint8Array): { type: DocumentType } | { other: string } {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return { type: 'application/pdf' }; // %PDF-
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { type: 'image/png' };
  if (starts(0xff, 0xd8, 0xff)) return { type: 'image/jpeg' };
  if (starts(0x4d, 0x5a)) return { other: 'a Windows executable (MZ)' };
  if (starts(0x7f, 0x45, 0x4c, 0x46)) return { other: 'an ELF executable' };
  if (starts(0xcf, 0xfa, 0xed, 0xfe) || starts(0xfe, 0xed, 0xfa, 0xcf) || starts(0xca, 0xfe, 0xba, 0xbe)) return { other: 'a Mach-O executable' };
  if (starts(0x23, 0x21)) return { other: 'a script (#!)' };
  if (starts(0x50, 0x4b, 0x03, 0x04)) return { other: 'a ZIP archive' };
  return { other: 'not a PDF, PNG or JPEG file' };
}

/** Decodes and checks a `data:<type>;base64,<data>` URL; throws DocumentError with a clear reason. */
export function checkDocument(dataUrl: string): CheckedDocument {
  const comma = dataUrl.indexOf(',');
  if (!dataUrl.startsWith('data:') || comma < 0) {
    throw new DocumentError('base64 must be a data URL: data:<media type>;base64,<data>');
  }
  const header = dataUrl.slice(5, comma);
  const params = header.split(';');
  const declared = params[0]!.toLowerCase();
  if (!params.slice(1).some((p) => p.toLowerCase() === 'base64')) {
    throw new DocumentError('the data URL must be base64-encoded (data:<media type>;base64,<data>)');
  }
  if (!(ACCEPTED as readonly string[]).includes(declared)) {
    throw new DocumentError(`declared type ${JSON.stringify(declared)} is not accepted: only application/pdf, image/png and image/jpeg`);
  }
  const data = dataUrl.slice(comma + 1);
  // Checked before decoding so an oversized document is refused without allocating it.
  const decodedLength = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (decodedLength > MAX_DOCUMENT_BYTES) {
    throw new DocumentError(`the document is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB once decoded`);
  }
  if (data.length === 0) throw new DocumentError('the document is empty');
  // Buffer.from(…, 'base64') silently skips bad characters; a strict check comes first.
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw new DocumentError('the data URL does not hold valid base64');
  const bytes = Buffer.from(data, 'base64');
  const what = sniff(bytes);
  if ('other' in what) throw new DocumentError(`the content is ${what.other}; only PDF, PNG and JPEG documents are accepted`);
  if (what.type !== declared) throw new DocumentError(`the declared type ${declared} does not match the content, which is ${what.type}`);
  return { mimeType: what.type, bytes };
}
