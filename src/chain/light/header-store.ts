// The verified header chain of a light source, kept in the database (migration 0013) so a restart does not
// fetch and check every header again from the checkpoint. Rows are only ever written from headers that passed
// HeaderChain's checks; a reorganisation replaces the rows above the fork in the caller's transaction.
import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { ChainId } from '../chain-id.ts';
import type { ChainHeader } from './header-chain.ts';

type Trx = Transaction<Database>;

/** Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits (4 per row). */
const BATCH = 500;

/** The 80 bytes of a header, rebuilt from its fields (the hash of the result is the header's hash). */
export function serializeHeader(h: { version: number; prevHash: string; merkleRoot: string; time: number; bits: number; nonce: number }): Uint8Array {
  const out = Buffer.alloc(80);
  out.writeInt32LE(h.version | 0, 0);
  Buffer.from(h.prevHash, 'hex').reverse().copy(out, 4);
  Buffer.from(h.merkleRoot, 'hex').reverse().copy(out, 36);
  out.writeUInt32LE(h.time >>> 0, 68);
  out.writeUInt32LE(h.bits >>> 0, 72);
  out.writeUInt32LE(h.nonce >>> 0, 76);
  return new Uint8Array(out);
}

export class HeaderStore {
  constructor(
    private readonly db: Db,
    private readonly chain: ChainId,
  ) {}

  /** Stored headers from `fromHeight` up, in height order, as raw bytes (verified again by the caller). */
  async load(fromHeight: number): Promise<Array<{ height: number; raw: Uint8Array }>> {
    const rows = await this.db.kysely
      .selectFrom('light_headers')
      .select(['height', 'header_hex'])
      .where('chain', '=', this.chain)
      .where('height', '>=', BigInt(fromHeight))
      .orderBy('height')
      .execute();
    return rows.map((r) => ({ height: Number(r.height), raw: new Uint8Array(Buffer.from(r.header_hex, 'hex')) }));
  }

  /** Replaces every stored header at or above `fromHeight` with `headers` (which start at `fromHeight`). */
  async replaceFrom(trx: Trx, fromHeight: number, headers: readonly ChainHeader[]): Promise<void> {
    await trx.deleteFrom('light_headers').where('chain', '=', this.chain).where('height', '>=', BigInt(fromHeight)).execute();
    for (let i = 0; i < headers.length; i += BATCH) {
      await trx
        .insertInto('light_headers')
        .values(
          headers.slice(i, i + BATCH).map((h) => ({
            chain: this.chain,
            height: BigInt(h.height),
            hash: h.hash,
            header_hex: Buffer.from(serializeHeader(h)).toString('hex'),
          })),
        )
        .execute();
    }
  }

  /** The highest stored header (what `satgate status` shows when the server is not running). */
  async tip(): Promise<{ height: number; hash: string } | undefined> {
    const row = await this.db.kysely
      .selectFrom('light_headers')
      .select(['height', 'hash'])
      .where('chain', '=', this.chain)
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { height: Number(row.height), hash: row.hash } : undefined;
  }
}
