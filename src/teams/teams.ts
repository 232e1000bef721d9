// Store teams as the faces use them: the guard's verdict on a request and the Owner's members management.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Clock } from '../core/clock.ts';
import { judge, type WalletResolvers } from './guard.ts';
import { addMember, changeMember, listMembers, roleIn, type Member } from './members.ts';
import type { Role } from './permissions.ts';

/** Teams over one database. */
export class Teams {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The guard's verdict on a signed-in request (guard.ts). */
  judge(request: FastifyRequest, profileId: bigint, resolvers: WalletResolvers = {}) {
    return judge(this.db.kysely, request, profileId, resolvers);
  }

  /** The profile's role in a wallet, or null when not a member. */
  role(profileId: bigint, apiId: string): Promise<Role | null> {
    return roleIn(this.db.kysely, profileId, apiId);
  }

  members(apiId: string): Promise<Member[]> {
    return listMembers(this.db, apiId);
  }

  add(actorId: bigint, apiId: string, email: string, role: unknown): Promise<void> {
    return addMember(this.db, actorId, apiId, email, role, this.clock());
  }

  /** Changes a member's role, or removes them with `role` null. */
  change(apiId: string, email: string, role: unknown | null): Promise<void> {
    return changeMember(this.db, apiId, email, role);
  }
}
