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
  created_at: bigint;
  updated_at: bigint;
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
}

/** The whole database as Kysely sees it; later capabilities extend it with their tables. */
export interface Database {
  wallets: WalletsTable;
  addresses: AddressesTable;
  address_notes: AddressNotesTable;
  chain_tips: ChainTipsTable;
  chain_blocks: ChainBlocksTable;
  chain_txs: ChainTxsTable;
  chain_outputs: ChainOutputsTable;
  chain_spends: ChainSpendsTable;
  address_orders: AddressOrdersTable;
}
