// Store teams as the faces use them: the guard's verdict on a request and the Owner's members management.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { judge, type WalletResolvers } from './guard.ts';
import { addMember, changeMember, listMembers, roleIn, type Member } from './members.ts';
import type { Role } from './permissions.ts';
import { listWalletAudit, type AuditRow } from './audit.ts';
import { canOf, rolesByWallet, type Can } from './visibility.ts';

/** Teams over one database. */
export class Teams {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** The service's public URL, named in the Owners' notices. */
    private readonly publicUrl = '',
  ) {}

  /** The guard's verdict on a signed-in request (guard.ts). */
  judge(request: FastifyRequest, profileId: bigint, resolvers: WalletResolvers = {}) {
    return judge(this.db.kysely, request, profileId, resolvers);
  }

  /** The profile's role in a wallet, or null when not a member. */
  role(profileId: bigint, apiId: string): Promise<Role | null> {
    return roleIn(this.db.kysely, profileId, apiId);
  }

  /** What the console offers the profile (visibility.ts): the permission table over its role in each wallet. */
  async can(profileId: bigint): Promise<Can> {
    return canOf(await rolesByWallet(this.db.kysely, profileId));
  }

  members(apiId: string): Promise<Member[]> {
    return listMembers(this.db, apiId);
  }

  add(actorId: bigint, apiId: string, email: string, role: unknown): Promise<void> {
    return addMember(this.db, actorId, apiId, email, role, this.clock(), this.consoleUrl());
  }

  /** Changes a member's role, or removes them with `role` null (which ends their sessions); `actorId`: who did it. */
  change(actorId: bigint | null, apiId: string, email: string, role: unknown | null): Promise<void> {
    return changeMember(this.db, apiId, email, role, { actorId, now: this.clock(), consoleUrl: this.consoleUrl() });
  }

  /** The trail of the wallet's state-changing actions, newest first (audit.ts). */
  audit(apiId: string, limit?: number): Promise<AuditRow[]> {
    return listWalletAudit(this.db.kysely, apiId, limit);
  }

  /** The console's address, for the Owners' notices. */
  consoleUrl(): string {
    return `${this.publicUrl}/console/`;
  }
}
