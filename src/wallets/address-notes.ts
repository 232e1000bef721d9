import { DomainError } from '../core/domain-errors.ts';
import { isoUtc, type Clock } from '../core/clock.ts';
import type { WalletRepository } from './wallet-repository.ts';

/** Longest note accepted, so one address cannot grow without bound. */
export const MAX_NOTE_LENGTH = 10_000;

/** Notes attached to an address the service issued (ops 11 and 12). */
export class AddressNotes {
  constructor(
    private readonly repo: WalletRepository,
    private readonly clock: Clock,
  ) {}

  /** Every note on the address with its database time; code 201 for an address never issued. */
  async list(address: string): Promise<{ info: string; dbtime: string }[]> {
    const row = await this.issued(address);
    const notes = await this.repo.notes(row.id);
    return notes.map((n) => ({ info: n.info, dbtime: isoUtc(Number(n.created_at)) }));
  }

  /** Adds a note; code 201 for an address never issued or an over-long note. */
  async add(address: string, info: string): Promise<void> {
    if (info.length > MAX_NOTE_LENGTH) throw new DomainError('invalid', `info is longer than ${MAX_NOTE_LENGTH} characters`);
    const row = await this.issued(address);
    await this.repo.addNote(row.id, info, this.clock());
  }

  private async issued(address: string) {
    const row = await this.repo.findAddress(address);
    if (!row) throw new DomainError('invalid', 'Wrong or missing argument: this address was not issued by this service');
    return row;
  }
}
