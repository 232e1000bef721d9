import type { Generated } from 'kysely';

/**
 * Table types shared by both engines. Every integer column is BIGINT and reads back as `bigint`
 * on SQLite (safe integers) and PostgreSQL (int8 parser) alike; times are epoch milliseconds.
 */
export interface WalletsTable {
  id: Generated<bigint>;
  api_id: string;
  pub: string;
  mode: 'live' | 'test';
  network: string;
  script_type: string;
  wallet_type: bigint;
  local_currency: string;
  notification_email: string | null;
  return_url: string | null;
  account_name: string | null;
  account_type: string | null;
  info: string | null;
  required_confirmations: Generated<bigint>;
  box_public_key: string;
  box_secret_sealed: string;
  sign_public_key: string;
  sign_secret_sealed: string;
  seed_sealed: string | null;
  /** The notification e-mail (lowercase) given when the wallet was first registered; later add_pub calls never change it. */
  registration_email: string | null;
  created_at: bigint;
  updated_at: bigint;
  /** `[fingerprint/path]` of the key below its master, when the operator gave it (PSBT key origins). */
  key_origin?: string | null;
  /** When add_pub (no sign-in) last changed the account name payers see; null once the owner saved it (migration 0019). */
  account_name_unconfirmed_at?: bigint | null;
  /** The account name the owner last saw, before the unconfirmed change. */
  account_name_previous?: string | null;
  /**
   * The canonical output descriptor of a wallet registered from a descriptor, BTCPay derivation scheme or multisig
   * cosigner set (migration 0021); null for one extended key, which derives from `pub` and `script_type`.
   */
  descriptor?: string | null;
  /** The merchant's default language for payer pages and e-mails (a supported tag); null: none (migration 0024). */
  default_language?: string | null;
}

export interface AddressesTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  derivation_index: bigint;
  address: string;
  script_hex: string;
  created_at: bigint;
  reserved_until: bigint | null;
  first_funded_at: bigint | null;
  /** 'order' (set_addr: may be reused when unpaid) or 'payment' (payment API v1: never reused). */
  purpose: Generated<string>;
}

/** A pre-derived address not yet issued (issue 16); invisible to everything but the issuer. */
export interface AddressPoolTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  derivation_index: bigint;
  address: string;
  script_hex: string;
  script_type: string;
  created_at: bigint;
}

export interface AddressNotesTable {
  id: Generated<bigint>;
  address_id: bigint;
  info: string;
  created_at: bigint;
}

export interface ChainTipsTable {
  chain: string;
  tip_hash: string;
  tip_height: bigint;
  updated_at: bigint;
}

/** A header of a light source's verified chain (migration 0013). */
export interface LightHeadersTable {
  chain: string;
  height: bigint;
  hash: string;
  header_hex: string;
}

export interface ChainBlocksTable {
  chain: string;
  hash: string;
  height: bigint;
  prev_hash: string;
  time: bigint;
}

/** A transaction touching a watched script; `state` is mempool, block or withdrawn. */
export interface ChainTxsTable {
  id: Generated<bigint>;
  chain: string;
  txid: string;
  locktime: bigint;
  state: 'mempool' | 'block' | 'withdrawn';
  block_hash: string | null;
  block_height: bigint | null;
  block_time: bigint | null;
  first_seen_at: bigint;
  withdrawn_at: bigint | null;
  withdrawn_reason: string | null;
}

export interface ChainOutputsTable {
  id: Generated<bigint>;
  tx_id: bigint;
  vout: bigint;
  address_id: bigint;
  value_sats: bigint;
}

export interface ChainSpendsTable {
  id: Generated<bigint>;
  tx_id: bigint;
  vin: bigint;
  output_id: bigint;
}

/** An order that reserved an address through set_addr. */
export interface AddressOrdersTable {
  id: Generated<bigint>;
  address_id: bigint;
  wallet_id: bigint;
  client_txid: string | null;
  return_email: string | null;
  local_currency: string;
  order_amount: string | null;
  exchange_rate: string;
  exchange_rate_at: bigint;
  rate_lock_expires_at: bigint;
  client_public_key: string | null;
  payload_json: string | null;
  created_at: bigint;
  reserved_until: bigint;
  /** Derived order state (6.2), null for orders made before payment updates existed. */
  order_status: string | null;
  payment_status: string | null;
  status_at: bigint | null;
  /** JSON object txid → confirmed (boolean): what the last notification reported. */
  tx_snapshot_json: string | null;
  open_txs: Generated<bigint>;
  /** The order's auth_response_token, sealed with the master key. */
  auth_token_sealed: string | null;
}

export interface OauthClientsTable {
  id: Generated<bigint>;
  client_id: string;
  secret_hash: string;
  created_at: bigint;
  revoked_at: bigint | null;
}

export interface OauthClientWalletsTable {
  client_id: bigint;
  wallet_id: bigint;
}

export interface OauthTokensTable {
  id: Generated<bigint>;
  token_hash: string;
  client_id: bigint;
  created_at: bigint;
  expires_at: bigint;
}

/** A wallet's webhook signing secret (sealed), and the previous one while it is still honoured. */
export interface WebhookSecretsTable {
  wallet_id: bigint;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_valid_until: bigint | null;
  rotated_at: bigint;
}

/** A payment API v1 request. Amount columns mirror the last derived status. */
export interface PaymentsTable {
  id: Generated<bigint>;
  reference: string;
  wallet_id: bigint;
  address_id: bigint;
  client_id: bigint | null;
  type: 'custom' | 'hosted';
  crypto_currency: string;
  crypto_sats: bigint;
  order_currency: string;
  order_amount: string;
  exchange_rate: string;
  rate_lock_id: bigint | null;
  expiry_at: bigint;
  monitor_until: bigint;
  status: string;
  status_at: bigint;
  confirmed_sats: Generated<bigint>;
  unconfirmed_sats: Generated<bigint>;
  confirmed_order_amount: Generated<string>;
  unconfirmed_order_amount: Generated<string>;
  request_json: string;
  created_at: bigint;
  /** Confirmations this payment needs (Greenfield's speedPolicy); null: the wallet's. */
  required_confirmations: bigint | null;
}

export interface PaymentTransitionsTable {
  id: Generated<bigint>;
  payment_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

export interface IdempotencyKeysTable {
  /** Whose key it is: `oauth-client:<row id>` for the payment API. */
  scope: string;
  key: string;
  body_hash: string;
  response_json: string | null;
  created_at: bigint;
}

/** The rate an output first seen after a payment's expiry is valued at: the spot rate at first sight. */
export interface PaymentOutputRatesTable {
  payment_id: bigint;
  /** The output by txid and index (not by row id: a reorg may drop and re-add the row; the rate stays as first seen). */
  txid: string;
  vout: bigint;
  rate: string;
  rate_at: bigint;
  /** 'spot', or 'locked' when no fresh spot rate was available at first sight. */
  source: string;
  created_at: bigint;
}

/** A webhook or e-mail waiting to be delivered (the durable outbox). */
export interface OutboxTable {
  id: Generated<bigint>;
  event_id: string;
  kind: 'webhook' | 'email';
  wallet_id: bigint | null;
  payment_id: bigint | null;
  target: string;
  payload_json: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: Generated<bigint>;
  next_attempt_at: bigint;
  locked_until: bigint | null;
  last_error: string | null;
  created_at: bigint;
  delivered_at: bigint | null;
  /** The order the event is about: 'form' (payment_forms.id) or 'address' (address_orders.id). */
  order_kind: string | null;
  order_id: bigint | null;
  /** The Greenfield webhook a delivery belongs to (migration 0017): signed with its secret, BTCPay's way. */
  greenfield_webhook_id: Generated<bigint | null>;
}

/** A Greenfield webhook of a store (= wallet), migration 0017. */
export interface GreenfieldWebhooksTable {
  id: Generated<bigint>;
  public_id: string;
  wallet_id: bigint;
  url: string;
  secret_sealed: string;
  enabled: number;
  automatic_redelivery: number;
  everything: number;
  /** JSON array of event type names. */
  specific_events: string;
  created_at: bigint;
  updated_at: bigint;
}

/** What was announced about a Greenfield invoice: one row per payment event (received, settled). */
export interface GreenfieldEventMarksTable {
  payment_id: bigint;
  mark: string;
  at: bigint;
}

/** The Greenfield status last announced for an invoice. */
export interface GreenfieldEventStatusTable {
  payment_id: bigint;
  status: string;
  additional_status: string;
  expiry_at: bigint;
  updated_at: bigint;
}

/** A refund asked for through Greenfield's pull-payment route. */
export interface GreenfieldPullPaymentsTable {
  id: Generated<bigint>;
  public_id: string;
  wallet_id: bigint;
  refund_id: bigint;
  payment_id: bigint;
  name: string;
  description: string;
  amount: string;
  currency: string;
  created_at: bigint;
}

/** A general Greenfield pull payment (migration 0025); refunds keep greenfield_pull_payments. */
export interface GreenfieldPullsTable {
  id: Generated<bigint>;
  public_id: string;
  wallet_id: bigint;
  name: string;
  description: string;
  amount_sats: bigint;
  auto_approve: number;
  /** Unix seconds. */
  starts_at: bigint;
  expires_at: bigint | null;
  archived_at: bigint | null;
  created_at: bigint;
}

/** One payout of a general pull payment (migration 0025). */
export interface GreenfieldPayoutsTable {
  id: Generated<bigint>;
  public_id: string;
  wallet_id: bigint;
  pull_id: bigint;
  destination: string;
  amount_sats: bigint;
  /** AwaitingApproval, AwaitingPayment, InProgress, Completed, Cancelled. */
  state: string;
  /** The state last announced to webhooks. */
  announced_state: string;
  spend_id: bigint | null;
  last_error: string | null;
  /** The metadata a store-created payout was given (JSON object), '{}' otherwise. */
  metadata_json: string;
  created_at: bigint;
  updated_at: bigint;
}

export interface OutboxAttemptsTable {
  id: Generated<bigint>;
  outbox_id: bigint;
  attempt: bigint;
  at: bigint;
  http_status: bigint | null;
  error: string | null;
  duration_ms: bigint;
}

/** One stored set of rates: a refresh ('refresh') or a past day fetched from a provider's history ('history'). */
export interface RateRecordsTable {
  id: Generated<bigint>;
  /** When the prices apply: the refresh time, or noon UTC of the fetched day. */
  rate_at: bigint;
  fetched_at: bigint;
  origin: 'refresh' | 'history';
  /** JSON object: uppercase code → price of 1 BTC as a decimal string. */
  rates_json: string;
  /** JSON summary of which sources answered and which failed. */
  sources_json: string;
}

/** A rate fixed for a purpose until `expires_at`. */
export interface RateLocksTable {
  id: Generated<bigint>;
  purpose: string;
  currency: string;
  rate: string;
  rate_at: bigint;
  locked_at: bigint;
  expires_at: bigint;
}

/** A transaction the service built and signed (kind 'signed') or a merchant-signed one it verified ('external'). */
export interface SpendsTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  /** What the spend is for ('refund', 'withdrawal', 'operator', …); with `reference`, its idempotency key. */
  purpose: string;
  reference: string | null;
  kind: 'signed' | 'external';
  /** 'signed' (stored, not yet accepted by the node), 'broadcast', 'confirmed', 'failed'. */
  status: string;
  txid: string;
  raw_hex: string;
  fee_sats: bigint;
  /** sat/vB. */
  fee_rate: bigint;
  vsize: bigint;
  change_address_id: bigint | null;
  broadcast_attempts: Generated<bigint>;
  last_error: string | null;
  created_at: bigint;
  updated_at: bigint;
  broadcast_at: bigint | null;
  confirmed_at: bigint | null;
}

export interface SpendInputsTable {
  id: Generated<bigint>;
  spend_id: bigint;
  n: bigint;
  output_id: bigint;
  txid: string;
  vout: bigint;
  value_sats: bigint;
}

export interface SpendOutputsTable {
  id: Generated<bigint>;
  spend_id: bigint;
  n: bigint;
  address: string;
  script_hex: string;
  amount_sats: bigint;
  is_change: bigint;
}

/** A coin taken by a spend; the primary key on the coin makes a second reservation fail. */
export interface CoinReservationsTable {
  output_id: bigint;
  spend_id: bigint;
  created_at: bigint;
}

/** A transaction of a spend that a fee bump replaced. */
export interface SpendReplacementsTable {
  id: Generated<bigint>;
  spend_id: bigint;
  txid: string;
  raw_hex: string;
  fee_sats: bigint;
  fee_rate: bigint;
  replaced_at: bigint;
}

/** A refund of (part of) a credit to a wallet; `state` is awaiting_address, scheduled, processing or confirmed. */
export interface RefundsTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  profile_id: bigint;
  credit_txid: string;
  amount_sats: bigint;
  token_hash: string;
  /** The form token sealed with the master key, so an idempotent retry can answer the same URL. */
  token_sealed: string;
  idempotency_key: string | null;
  payer_email: string | null;
  address: string | null;
  script_hex: string | null;
  state: string;
  spend_id: bigint | null;
  last_error: string | null;
  created_at: bigint;
  updated_at: bigint;
  /** The language the refund page was shown in when the payer set the address (migration 0024). */
  payer_language?: string | null;
}

export interface RefundTransitionsTable {
  id: Generated<bigint>;
  refund_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

/** A platform the operator trusts: its key (hashed), network, settlement address and webhook. */
export interface PartnersTable {
  id: Generated<bigint>;
  name: string;
  mode: 'live' | 'test';
  network: string;
  key_hash: string;
  /** The key's first characters, for the operator to tell keys apart (never enough to use it). */
  key_hint: string;
  settlement_address: string;
  webhook_url: string | null;
  webhook_secret_sealed: string;
  created_at: bigint;
  revoked_at: bigint | null;
}

/** A partner's merchant: a service-held wallet, its keys (hashed) and sealed personal data. */
export interface PartnerWalletsTable {
  id: Generated<bigint>;
  partner_id: bigint;
  wallet_id: bigint;
  partner_merchant_id: string;
  merchant_name: string;
  merchant_key_hash: string;
  withdrawal_key_hash: string;
  /** pending_kyc, active or rejected. */
  wallet_status: string;
  status_reason: string | null;
  status_at: bigint;
  contact_sealed: string;
  bank_info_sealed: string;
  metadata_sealed: string | null;
  created_at: bigint;
}

/** One uploaded identity document, sealed. */
export interface KycDocumentsTable {
  id: Generated<bigint>;
  partner_wallet_id: bigint;
  doc_id: string;
  mime_type: string;
  size_bytes: bigint;
  description_sealed: string;
  content_sealed: string;
  metadata_sealed: string | null;
  created_at: bigint;
}

/** A withdrawal quote and, once confirmed, the withdrawal it became. */
export interface WithdrawalsTable {
  id: Generated<bigint>;
  withdrawal_id: string;
  partner_wallet_id: bigint;
  wallet_id: bigint;
  currency: string;
  amount: string;
  exchange_rate: string;
  crypto_sats: bigint;
  fee_estimate_sats: bigint;
  rate_lock_id: bigint | null;
  expires_at: bigint;
  /** quoted, pending, success or failed. */
  status: string;
  status_at: bigint;
  failure_reason: string | null;
  settlement_address: string;
  /** The spend (spending capability) paying the settlement address; its txid is copied to `txid` (a fee bump changes it). */
  spend_id: bigint | null;
  txid: string | null;
  send_attempts: Generated<bigint>;
  confirmed_at: bigint | null;
  created_at: bigint;
}

/** Every status change of a partner wallet. */
export interface PartnerWalletTransitionsTable {
  id: Generated<bigint>;
  partner_wallet_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

/** Every status change of a withdrawal (`withdrawal_id` is the row id, not the public `wd_…` ID). */
export interface WithdrawalTransitionsTable {
  id: Generated<bigint>;
  withdrawal_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

/** A pay button (issue 36): a wallet's public payment entry at /button/<public_id>; amount null: the payer chooses it. */
export interface PayButtonsTable {
  id: Generated<bigint>;
  /** Unguessable and public: it is in the merchant's HTML snippet. */
  public_id: string;
  wallet_id: bigint;
  label: string;
  description: string | null;
  currency: string;
  /** Exact decimal strings in `currency`. */
  amount: string | null;
  min_amount: string | null;
  max_amount: string | null;
  created_at: bigint;
}

/** The payments a pay button created. */
export interface PayButtonPaymentsTable {
  payment_id: bigint;
  button_id: bigint;
  created_at: bigint;
}

/** A payment form (operation 14): the merchant's order, the payer's fields and the derived order state. */
export interface PaymentFormsTable {
  id: Generated<bigint>;
  /** SHA-256 of the form token (the token itself is only in the page URL). */
  token_hash: string;
  wallet_id: bigint;
  address_id: bigint;
  order_id: string;
  /** Exact decimal in the order currency. */
  order_amount: string;
  order_currency: string;
  user_id: string | null;
  user_email: string | null;
  payment_cancel_url: string;
  payment_complete_url: string;
  payment_update_url: string;
  site_name: string;
  /** JSON array of field objects (2.7), with the payer's values once submitted. */
  user_fields_json: string;
  auth_token_sealed: string;
  auth_token_hash: string;
  fields_submitted_at: bigint | null;
  /** End of the current rate lock (the first one or the latest refresh). */
  lock_expires_at: bigint;
  order_status: string;
  payment_status: string;
  status_at: bigint;
  tx_snapshot_json: string;
  open_txs: Generated<bigint>;
  created_at: bigint;
  /** When the payer asked for a receipt by e-mail; null: no consent (migration 0020). */
  receipt_requested_at: Generated<bigint | null>;
  /** The order page's address (it holds the form token), sealed with the master key; null without consent. */
  receipt_link_sealed: Generated<string | null>;
  /** When the payer's receipt was queued in the outbox; null: not yet. */
  receipt_queued_at: Generated<bigint | null>;
  /** The language the payer's page was shown in when they asked for the receipt; the receipt is written in it. */
  receipt_language?: string | null;
}

/** One rate lock of a form: the first at creation, then one per refresh. */
export interface FormRateLocksTable {
  id: Generated<bigint>;
  form_id: bigint;
  rate_lock_id: bigint;
  rate: string;
  rate_at: bigint;
  locked_at: bigint;
  expires_at: bigint;
}

/** A change of a payment form's order status, with its cause. */
export interface FormTransitionsTable {
  id: Generated<bigint>;
  form_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

/** The spot rate an output first seen after its order's lock ran out is valued at ('locked' when none was fresh). */
export interface OrderOutputRatesTable {
  order_kind: string;
  order_id: bigint;
  txid: string;
  vout: bigint;
  rate: string;
  rate_at: bigint;
  source: string;
  created_at: bigint;
}

/** A change of a set_addr order's order status, with its cause. */
export interface AddressOrderTransitionsTable {
  id: Generated<bigint>;
  address_order_id: bigint;
  from_status: string | null;
  to_status: string;
  cause: string;
  at: bigint;
}

/** A merchant dashboard profile; the e-mail (lowercase) is the login. */
export interface ProfilesTable {
  id: Generated<bigint>;
  email: string;
  firstname: string | null;
  lastname: string | null;
  mobile: string | null;
  country: string | null;
  created_at: bigint;
  updated_at: bigint;
}

/** A profile's current one-time code: only its HMAC is stored. `state` is open, used or dead. */
export interface DashboardOtpsTable {
  profile_id: bigint;
  nonce: string;
  code_hash: string;
  state: 'open' | 'used' | 'dead';
  failures: Generated<bigint>;
  issued_at: bigint;
  expires_at: bigint;
  /** Profile fields posted with send_otp, applied once the code proves the e-mail. */
  pending_fields_json: string | null;
  requested_ip: string | null;
}

/** Wrong sign-in codes in a row for a profile's e-mail, across codes, and the time before which none is compared. */
export interface LoginFailuresTable {
  profile_id: bigint;
  failures: bigint;
  wait_until: bigint;
  updated_at: bigint;
}

/** A dashboard session: only the SHA-256 of its token is stored. */
export interface DashboardSessionsTable {
  id: Generated<bigint>;
  token_hash: string;
  profile_id: bigint;
  created_at: bigint;
  expires_at: bigint;
  ended_at: bigint | null;
  ip: string | null;
}

/** A wallet a profile may see; `via` is 'notification_email' or 'operator'. */
export interface ProfileWalletsTable {
  profile_id: bigint;
  wallet_id: bigint;
  via: string;
  created_at: bigint;
}

/** A wallet's member and role (0029, src/teams/members.ts). */
export interface WalletMembersTable {
  wallet_id: bigint;
  profile_id: bigint;
  role: string;
  added_by: bigint | null;
  created_at: bigint;
}

/** An invitation to a wallet's team (0030, src/teams/invitations.ts); the link's token only as its hash. */
export interface WalletInvitationsTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  email: string;
  role: string;
  token_hash: string;
  invited_by: bigint;
  created_at: bigint;
  expires_at: bigint;
  used_at: bigint | null;
  used_by: bigint | null;
  revoked_at: bigint | null;
}

/** Store teams' audit trail (migration 0031): who did what to which wallet, when, from where. */
export interface WalletAuditTable {
  id: Generated<bigint>;
  wallet_id: bigint | null;
  /** 'member' (a signed-in person) or 'key' (a Greenfield API key). */
  actor_kind: string;
  /** The member's sign-in e-mail or the key's public id. */
  actor: string;
  profile_id: bigint | null;
  action: string | null;
  route: string;
  target: string | null;
  detail: string | null;
  status: bigint;
  ip: string | null;
  created_at: bigint;
}

export interface RateLimitBucketsTable {
  key: string;
  touched_at: bigint;
}

export interface RateLimitEventsTable {
  id: Generated<bigint>;
  key: string;
  at: bigint;
}

/** Who did what from where: logins, failed codes, associations, refunds. */
export interface AuditEventsTable {
  id: Generated<bigint>;
  at: bigint;
  action: string;
  profile_id: bigint | null;
  email: string | null;
  ip: string | null;
  detail_json: string | null;
}

/** The whole database as Kysely sees it; later capabilities extend it with their tables. */
/** Leases electing the process that runs singleton work (PostgreSQL only; migration 0015). */
export interface LeasesTable {
  name: string;
  holder: string;
  token: bigint;
  acquired_at: bigint;
  renewed_at: bigint;
  expires_at: bigint;
}

/** One fact of the merchant's ledger (migration 0022); append-only, `confirmed_*` written once from null. */
export interface LedgerEntriesTable {
  id: Generated<bigint>;
  wallet_id: bigint;
  chain: string;
  /** 'receipt', 'refund', 'withdrawal' or 'spend'. */
  kind: string;
  /** The row this one takes back (a double spend or a reorg), with `reason`. */
  reverses_id: bigint | null;
  reason: string | null;
  /** When the fact happened: first sight, or for a reversal when it was taken back. */
  at: bigint;
  txid: string;
  vout: bigint | null;
  address: string;
  /** Signed as the wallet sees it: in positive, out negative; a reversal the opposite of its row. */
  amount_sats: bigint;
  fee_sats: bigint | null;
  ref_kind: string | null;
  ref: string | null;
  first_seen_at: bigint;
  confirmed_height: bigint | null;
  confirmed_block_hash: string | null;
  confirmed_at: bigint | null;
  late: bigint;
  /** 'exact', 'over' or 'under': the order's total once this output came. */
  paid: string | null;
  currency: string;
  rate: string | null;
  rate_source: string | null;
  rate_at: bigint | null;
  /** 1: no rate recorded at the time; the history's nearest. */
  rate_estimated: bigint;
  fiat_value: string | null;
  locked_rate: string | null;
  invoiced_amount: string | null;
  invoiced_currency: string | null;
  recorded_at: bigint;
}

export interface Database {
  wallets: WalletsTable;
  addresses: AddressesTable;
  address_pool: AddressPoolTable;
  address_notes: AddressNotesTable;
  rate_records: RateRecordsTable;
  rate_locks: RateLocksTable;
  chain_tips: ChainTipsTable;
  chain_blocks: ChainBlocksTable;
  light_headers: LightHeadersTable;
  chain_txs: ChainTxsTable;
  chain_outputs: ChainOutputsTable;
  chain_spends: ChainSpendsTable;
  address_orders: AddressOrdersTable;
  oauth_clients: OauthClientsTable;
  oauth_client_wallets: OauthClientWalletsTable;
  oauth_tokens: OauthTokensTable;
  webhook_secrets: WebhookSecretsTable;
  payments: PaymentsTable;
  payment_transitions: PaymentTransitionsTable;
  payment_output_rates: PaymentOutputRatesTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  outbox: OutboxTable;
  outbox_attempts: OutboxAttemptsTable;
  greenfield_webhooks: GreenfieldWebhooksTable;
  greenfield_event_marks: GreenfieldEventMarksTable;
  greenfield_event_status: GreenfieldEventStatusTable;
  greenfield_pull_payments: GreenfieldPullPaymentsTable;
  greenfield_pulls: GreenfieldPullsTable;
  greenfield_payouts: GreenfieldPayoutsTable;
  spends: SpendsTable;
  spend_inputs: SpendInputsTable;
  spend_outputs: SpendOutputsTable;
  greenfield_receive_addresses: GreenfieldReceiveAddressesTable;
  coin_reservations: CoinReservationsTable;
  spend_replacements: SpendReplacementsTable;
  refunds: RefundsTable;
  refund_transitions: RefundTransitionsTable;
  payment_forms: PaymentFormsTable;
  pay_buttons: PayButtonsTable;
  pay_button_payments: PayButtonPaymentsTable;
  form_rate_locks: FormRateLocksTable;
  form_transitions: FormTransitionsTable;
  address_order_transitions: AddressOrderTransitionsTable;
  order_output_rates: OrderOutputRatesTable;
  partners: PartnersTable;
  partner_wallets: PartnerWalletsTable;
  kyc_documents: KycDocumentsTable;
  withdrawals: WithdrawalsTable;
  partner_wallet_transitions: PartnerWalletTransitionsTable;
  withdrawal_transitions: WithdrawalTransitionsTable;
  profiles: ProfilesTable;
  dashboard_otps: DashboardOtpsTable;
  login_failures: LoginFailuresTable;
  dashboard_sessions: DashboardSessionsTable;
  profile_wallets: ProfileWalletsTable;
  wallet_members: WalletMembersTable;
  wallet_invitations: WalletInvitationsTable;
  wallet_audit: WalletAuditTable;
  rate_limit_buckets: RateLimitBucketsTable;
  rate_limit_events: RateLimitEventsTable;
  audit_events: AuditEventsTable;
  leases: LeasesTable;
  greenfield_api_keys: GreenfieldApiKeysTable;
  greenfield_invoices: GreenfieldInvoicesTable;
  greenfield_invoice_marks: GreenfieldInvoiceMarksTable;
  payment_requests: PaymentRequestsTable;
  payment_request_parts: PaymentRequestPartsTable;
  pos_apps: PosAppsTable;
  pos_items: PosItemsTable;
  pos_charges: PosChargesTable;
}

/** A Greenfield API key: hashed, for one store (a wallet), with BTCPay permission strings (JSON array). */
export interface GreenfieldApiKeysTable {
  id: Generated<bigint>;
  key_hash: string;
  key_hint: string;
  /** Public id of the key (lists and revocation name it; never the key itself). */
  key_id: string;
  wallet_id: bigint;
  store_id: string;
  permissions_json: string;
  label: string;
  user_id: string | null;
  created_at: bigint;
  revoked_at: bigint | null;
}

/** A Greenfield invoice: one payment of payment API v1 with Greenfield's own fields. */
export interface GreenfieldInvoicesTable {
  id: Generated<bigint>;
  invoice_id: string;
  payment_id: bigint;
  wallet_id: bigint;
  store_id: string;
  order_id: string | null;
  /** The amount and currency as the client asked (BTC in sats mode). */
  amount: string;
  currency: string;
  metadata_json: string;
  /** The effective checkout settings (defaults filled in). */
  checkout_json: string;
  /** Percent, decimal string. */
  payment_tolerance: string;
  manual_status: 'Settled' | 'Invalid' | null;
  manual_at: bigint | null;
  created_by_key: string | null;
  created_at: bigint;
  /** When it was archived (DELETE …/invoices/{id}): hidden from lists unless asked for; null while listed. */
  archived_at: Generated<bigint | null>;
  /** The supported language `checkout.defaultLanguage` names; null when none was given (migration 0024). */
  default_language?: string | null;
}

/** The store wallet's current Greenfield receive address (GET …/wallet/address). */
export interface GreenfieldReceiveAddressesTable {
  wallet_id: bigint;
  address_id: bigint;
  created_at: bigint;
}

/** A manual marking of an invoice (POST …/status), with its cause. */
export interface GreenfieldInvoiceMarksTable {
  id: Generated<bigint>;
  invoice_row_id: bigint;
  from_status: string;
  to_status: string;
  cause: string;
  at: bigint;
}

/** A payment request (migration 0026): an amount owed, paid in parts that are ordinary payments. */
export interface PaymentRequestsTable {
  id: Generated<bigint>;
  /** The unguessable public id (`/request/<id>`, Greenfield's id). */
  request_id: string;
  wallet_id: bigint;
  /** Decimal string in `currency` (BTC for a bitcoin-denominated request). */
  amount: string;
  currency: string;
  title: string;
  description: string | null;
  /** Epoch ms past which an unpaid request is Expired; null: never. */
  due_at: bigint | null;
  payer_email: string | null;
  /** 1: the payer may pay a part of their choice; 0: the whole amount at once. */
  allow_partial: bigint;
  created_at: bigint;
  updated_at: bigint;
  archived_at: bigint | null;
  /** When the payer's "paid in full" mail was queued; null before (it is queued once). */
  completed_mail_at: bigint | null;
}

/** One part of a payment request: the payment that pays it and the amount (in the request's currency) it asked. */
export interface PaymentRequestPartsTable {
  payment_id: bigint;
  request_row_id: bigint;
  amount: string;
  created_at: bigint;
}

/** A point of sale app (migration 0028): a wallet's counter page at `/pos/<public_id>`. */
export interface PosAppsTable {
  id: Generated<bigint>;
  /** Unguessable: the page's link is its only key. */
  public_id: string;
  /** Greenfield's appId (not a key: invoice metadata carries it as BTCPay's orderId `pos-app_<app_id>`). */
  app_id: string;
  wallet_id: bigint;
  /** The merchant's name for it (BTCPay's appName). */
  app_name: string;
  /** What the payer sees. */
  title: string;
  description: string | null;
  currency: string;
  /** 1: no items, a keypad only. */
  keypad_only: bigint;
  /** 1: the cashier may type an amount beside the items. */
  custom_amount: bigint;
  /** JSON array of whole percents, such as [5,10,15]; [] offers no preset. */
  tip_presets: string;
  /** 1: the payer may type a tip amount. */
  custom_tip: bigint;
  default_language: string | null;
  created_at: bigint;
  updated_at: bigint;
  deleted_at: bigint | null;
}

/** An item of a point of sale app. */
export interface PosItemsTable {
  id: Generated<bigint>;
  app_id: bigint;
  /** BTCPay's item id (itemCode on the invoice). */
  item_code: string;
  position: bigint;
  name: string;
  /** Exact decimal string in the app's currency. */
  price: string;
  image_url: string | null;
  description: string | null;
  /** Units left; null: not counted. */
  stock: bigint | null;
}

/** A charge of a point of sale app: its payment and the cart as the server priced it. */
export interface PosChargesTable {
  payment_id: bigint;
  app_id: bigint;
  cart_json: string;
  /** The page's language at the charge (the receipt mail's). */
  language: string | null;
  /** When the paid payment's items left the stock (once); null before, and again once the chain took the payment back. */
  stock_applied_at: bigint | null;
  /** What left the stock then, per item code (at most what was left): given back exactly if the chain takes the payment back. */
  stock_taken_json: string | null;
  /** When the payer's receipt mail was queued; null: none asked. */
  receipt_mail_at: bigint | null;
  created_at: bigint;
}
