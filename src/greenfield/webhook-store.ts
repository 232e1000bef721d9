// Greenfield webhooks of a store (= one wallet): create, read, update, delete. Secrets are sealed with the master
// key (they must be readable to sign deliveries) and answered once, on creation. URLs are SSRF-checked at save;
// the sender checks them again on every delivery.
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { base58 } from '@scure/base';
import type { Db } from '../db/database.ts';
import type { GreenfieldWebhooksTable } from '../db/schema.ts';
import type { MasterKey } from '../security/master-key.ts';
import { refusedWebhookTarget } from '../notify/webhook-target.ts';
import type { AuthorizedEvents } from './webhook-events.ts';

/** A stored webhook. */
export type WebhookRow = Selectable<GreenfieldWebhooksTable>;

/** A webhook as Greenfield answers it (`secret` only on creation). */
export interface WebhookData {
  id: string;
  enabled: boolean;
  automaticRedelivery: boolean;
  url: string;
  authorizedEvents: AuthorizedEvents;
  secret?: string;
}

/** The fields of a create or update request, already shape-checked by the route's schema. */
export interface WebhookInput {
  url: string;
  enabled?: boolean | null;
  automaticRedelivery?: boolean | null;
  authorizedEvents?: { everything?: boolean | null; specificEvents?: string[] | null } | null;
  secret?: string | null;
}

/** A refused webhook field: Greenfield answers it as a 422 `[{path, message}]`. */
export class WebhookFieldError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** A new opaque id (BTCPay's ids are Base58 of 16 random bytes too). */
export function newPublicId(): string {
  return base58.encode(randomBytes(16));
}

/** A new webhook secret: Base58 of 32 random bytes. */
export function newWebhookSecret(): string {
  return base58.encode(randomBytes(32));
}

/** The Greenfield face of a stored webhook. */
export function webhookData(row: WebhookRow): WebhookData {
  return {
    id: row.public_id,
    enabled: Number(row.enabled) === 1,
    automaticRedelivery: Number(row.automatic_redelivery) === 1,
    url: row.url,
    authorizedEvents: authorizedEventsOf(row),
  };
}

/** The events a stored webhook wants. */
export function authorizedEventsOf(row: Pick<WebhookRow, 'everything' | 'specific_events'>): AuthorizedEvents {
  return { everything: Number(row.everything) === 1, specificEvents: JSON.parse(row.specific_events) as string[] };
}

/** The webhooks of a wallet, and the one with an id. */
export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly masterKey: MasterKey,
    private readonly clock: () => number,
    private readonly allowPrivate: boolean,
  ) {}

  /** Every webhook of the wallet, oldest first. */
  async list(walletId: bigint): Promise<WebhookRow[]> {
    return this.db.kysely.selectFrom('greenfield_webhooks').selectAll().where('wallet_id', '=', walletId).orderBy('id').execute();
  }

  /** The wallet's webhook with this public id (another store's reads as unknown). */
  async find(walletId: bigint, publicId: string): Promise<WebhookRow | undefined> {
    return this.db.kysely.selectFrom('greenfield_webhooks').selectAll().where('wallet_id', '=', walletId).where('public_id', '=', publicId).executeTakeFirst();
  }

  /** Creates a webhook; answers it with its secret (given, or generated when absent, null or empty). */
  async create(walletId: bigint, input: WebhookInput): Promise<WebhookData> {
    await this.checkUrl(input.url);
    const secret = input.secret ? input.secret : newWebhookSecret();
    const events = eventsOf(input.authorizedEvents);
    const now = BigInt(this.clock());
    const row = await this.db.kysely
      .insertInto('greenfield_webhooks')
      .values({
        public_id: newPublicId(),
        wallet_id: walletId,
        url: input.url,
        secret_sealed: this.masterKey.seal(secret),
        enabled: input.enabled === false ? 0 : 1,
        automatic_redelivery: input.automaticRedelivery === false ? 0 : 1,
        everything: events.everything ? 1 : 0,
        specific_events: JSON.stringify(events.specificEvents),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...webhookData(row), secret };
  }

  /**
   * Replaces a webhook's settings; a secret left out, null or empty stays as it was (the PHP client sends
   * `secret: null` on every update).
   */
  async update(walletId: bigint, publicId: string, input: WebhookInput): Promise<WebhookData | undefined> {
    const existing = await this.find(walletId, publicId);
    if (!existing) return undefined;
    await this.checkUrl(input.url);
    const events = eventsOf(input.authorizedEvents);
    const row = await this.db.kysely
      .updateTable('greenfield_webhooks')
      .set({
        url: input.url,
        enabled: input.enabled === false ? 0 : 1,
        automatic_redelivery: input.automaticRedelivery === false ? 0 : 1,
        everything: events.everything ? 1 : 0,
        specific_events: JSON.stringify(events.specificEvents),
        ...(input.secret ? { secret_sealed: this.masterKey.seal(input.secret) } : {}),
        updated_at: BigInt(this.clock()),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return webhookData(row);
  }

  /** Deletes a webhook; its pending deliveries then fail (the sender finds no webhook). False when unknown. */
  async delete(walletId: bigint, publicId: string): Promise<boolean> {
    const existing = await this.find(walletId, publicId);
    if (!existing) return false;
    await this.db.kysely.deleteFrom('greenfield_webhooks').where('id', '=', existing.id).execute();
    return true;
  }

  private async checkUrl(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new WebhookFieldError('url', 'Invalid Url: it must be an absolute http or https URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new WebhookFieldError('url', 'Invalid Url: it must be an absolute http or https URL');
    const refused = await refusedWebhookTarget(url, { allowPrivate: this.allowPrivate });
    if (refused) throw new WebhookFieldError('url', `This URL is refused as a webhook target: ${refused}`);
  }
}

function eventsOf(input: WebhookInput['authorizedEvents']): AuthorizedEvents {
  const specificEvents = [...new Set(input?.specificEvents ?? [])];
  // BTCPay's default is everything; `everything: false` with no events would receive nothing, which is what was asked.
  const everything = input?.everything ?? true;
  return { everything, specificEvents };
}
