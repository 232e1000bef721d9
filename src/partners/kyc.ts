// KYC: partners upload identity documents (one per call, sealed at rest); the operator reviews them with
// the CLI and approves or rejects the wallet. Approval makes the wallet `active` (it may then withdraw).
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { DomainError } from '../core/domain-errors.ts';
import type { MasterKey } from '../security/master-key.ts';
import { checkDocument, DocumentError } from './kyc-document.ts';
import { onlyKnown, optionalObject, optionalString, requiredString, type Fields } from './fields.ts';
import { MAX_PERSONAL_JSON, walletEventFields, type PartnerMerchant, type PartnerWallets } from './partner-wallets.ts';
import { transitionWallet } from './transitions.ts';

const DOC_ID = /^[A-Za-z0-9._-]{1,64}$/;
const UPLOAD_FIELDS = ['partner_auth_key', 'merchant_api_id', 'merchant_auth_key', 'doc_id', 'description', 'base64', 'metadata'];

/** One stored document as the operator lists it (no content). */
export interface DocumentSummary {
  merchant_api_id: string;
  partner: string;
  partner_merchant_id: string;
  wallet_status: string;
  doc_id: string;
  mime_type: string;
  size_bytes: number;
  description: string;
  uploaded: string;
}

/** A reason the operator's review command cannot go ahead. */
export class KycReviewError extends Error {}

/** Uploads and reviews KYC documents. */
export class Kyc {
  constructor(
    private readonly db: Db,
    private readonly masterKey: MasterKey,
    private readonly clock: Clock,
    private readonly wallets: PartnerWallets,
  ) {}

  /** `POST /partner_merchant_kyc`: checks the document and stores it sealed; nothing is stored on any error. */
  async upload(merchant: PartnerMerchant, fields: Fields): Promise<{ merchant_api_id: string; doc_id: string }> {
    onlyKnown(fields, UPLOAD_FIELDS);
    const docId = requiredString(fields, 'doc_id', 64);
    if (!DOC_ID.test(docId)) throw new DomainError('invalid', 'Wrong or missing argument: doc_id must be 1 to 64 of A-Z a-z 0-9 . _ -');
    const description = optionalString(fields, 'description', 1000) ?? '';
    const metadata = optionalObject(fields, 'metadata');
    if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > MAX_PERSONAL_JSON) {
      throw new DomainError('invalid', `Wrong or missing argument: metadata is larger than ${MAX_PERSONAL_JSON} bytes`);
    }
    const dataUrl = fields.base64;
    if (typeof dataUrl !== 'string' || dataUrl === '') {
      throw new DomainError('invalid', 'Wrong or missing argument: base64 is required (a data URL of a PDF, PNG or JPEG document)');
    }
    let doc;
    try {
      doc = checkDocument(dataUrl);
    } catch (err) {
      if (err instanceof DocumentError) throw new DomainError('invalid', `Wrong or missing argument: ${err.message}`);
      throw err;
    }
    const now = this.clock();
    await this.db.kysely.transaction().execute(async (trx) => {
      const dup = await trx
        .selectFrom('kyc_documents')
        .select('id')
        .where('partner_wallet_id', '=', merchant.pw.id)
        .where('doc_id', '=', docId)
        .executeTakeFirst();
      if (dup) throw new DomainError('invalid', `Wrong or missing argument: doc_id ${docId} was already uploaded for this wallet`);
      await trx
        .insertInto('kyc_documents')
        .values({
          partner_wallet_id: merchant.pw.id,
          doc_id: docId,
          mime_type: doc.mimeType,
          size_bytes: BigInt(doc.bytes.length),
          description_sealed: this.masterKey.seal(description),
          content_sealed: this.masterKey.seal(doc.bytes),
          metadata_sealed: metadata === undefined ? null : this.masterKey.seal(JSON.stringify(metadata)),
          created_at: BigInt(now),
        })
        .execute();
      // New evidence after a rejection puts the wallet back in the operator's queue.
      if (merchant.pw.wallet_status === 'rejected') {
        await transitionWallet(trx, merchant.pw.id, 'pending_kyc', 'document uploaded after rejection', now, {
          webhook: { url: merchant.partner.webhook_url, walletId: merchant.wallet.id },
          payload: walletEventFields(merchant),
        });
      }
    });
    return { merchant_api_id: merchant.wallet.api_id, doc_id: docId };
  }

  /** Documents for review, oldest first; only those of wallets in `status` when given. */
  async list(status?: string): Promise<DocumentSummary[]> {
    let q = this.db.kysely
      .selectFrom('kyc_documents as d')
      .innerJoin('partner_wallets as pw', 'pw.id', 'd.partner_wallet_id')
      .innerJoin('wallets as w', 'w.id', 'pw.wallet_id')
      .innerJoin('partners as p', 'p.id', 'pw.partner_id')
      .select(['w.api_id', 'p.name', 'pw.partner_merchant_id', 'pw.wallet_status', 'd.doc_id', 'd.mime_type', 'd.size_bytes', 'd.description_sealed', 'd.created_at']);
    if (status) q = q.where('pw.wallet_status', '=', status);
    const rows = await q.orderBy('d.id').execute();
    return rows.map((r) => ({
      merchant_api_id: r.api_id,
      partner: r.name,
      partner_merchant_id: r.partner_merchant_id,
      wallet_status: r.wallet_status,
      doc_id: r.doc_id,
      mime_type: r.mime_type,
      size_bytes: Number(r.size_bytes),
      description: this.masterKey.unseal(r.description_sealed).toString('utf8'),
      uploaded: new Date(Number(r.created_at)).toISOString(),
    }));
  }

  /** One document's bytes, decrypted, for the operator to look at. */
  async show(apiId: string, docId: string): Promise<{ mimeType: string; bytes: Buffer; metadata: unknown }> {
    const merchant = await this.merchant(apiId);
    const row = await this.db.kysely
      .selectFrom('kyc_documents')
      .selectAll()
      .where('partner_wallet_id', '=', merchant.pw.id)
      .where('doc_id', '=', docId)
      .executeTakeFirst();
    if (!row) throw new KycReviewError(`wallet ${apiId} has no document ${JSON.stringify(docId)}`);
    return {
      mimeType: row.mime_type,
      bytes: this.masterKey.unseal(row.content_sealed),
      metadata: row.metadata_sealed === null ? null : JSON.parse(this.masterKey.unseal(row.metadata_sealed).toString('utf8')),
    };
  }

  /** Approves a wallet with at least one document: it becomes `active` and the partner hears of it. */
  async approve(apiId: string): Promise<{ changed: boolean }> {
    const merchant = await this.merchant(apiId);
    const docs = await this.db.kysely
      .selectFrom('kyc_documents')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('partner_wallet_id', '=', merchant.pw.id)
      .executeTakeFirstOrThrow();
    if (Number(docs.n) === 0) throw new KycReviewError(`wallet ${apiId} has no KYC documents yet; nothing to approve`);
    return this.move(merchant, 'active', 'approved by the operator', null);
  }

  /** Rejects a wallet with a reason the partner receives; a later upload puts it back to `pending_kyc`. */
  async reject(apiId: string, reason: string): Promise<{ changed: boolean }> {
    if (reason.trim() === '') throw new KycReviewError('a --reason is required');
    const merchant = await this.merchant(apiId);
    return this.move(merchant, 'rejected', 'rejected by the operator', reason.trim());
  }

  private async move(merchant: PartnerMerchant, to: 'active' | 'rejected', cause: string, reason: string | null) {
    const now = this.clock();
    const changed = await this.db.kysely.transaction().execute((trx) =>
      transitionWallet(trx, merchant.pw.id, to, cause, now, {
        webhook: { url: merchant.partner.webhook_url, walletId: merchant.wallet.id },
        payload: { ...walletEventFields(merchant), ...(reason ? { reason } : {}) },
        reason,
      }),
    );
    return { changed };
  }

  private async merchant(apiId: string): Promise<PartnerMerchant> {
    const m = await this.wallets.load(apiId);
    if (!m) throw new KycReviewError(`no partner merchant wallet with API ID ${apiId}`);
    return m;
  }
}
