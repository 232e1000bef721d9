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
  required_confirmations: bigint;
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
}

export interface AddressNotesTable {
  id: Generated<bigint>;
  address_id: bigint;
  info: string;
  created_at: bigint;
}

/** The whole database as Kysely sees it; later capabilities extend it with their tables. */
export interface Database {
  wallets: WalletsTable;
  addresses: AddressesTable;
  address_notes: AddressNotesTable;
}
