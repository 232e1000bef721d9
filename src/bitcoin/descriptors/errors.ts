/** Why a descriptor, derivation scheme or cosigner set was refused; the message names the part. */
import { ReasonError } from '../../core/errors.ts';

export type DescriptorReason =
  | 'not-a-string'
  | 'bad-checksum'
  | 'bad-character'
  | 'syntax'
  | 'unsupported'
  | 'private-key'
  | 'bad-key'
  | 'uncompressed-key'
  | 'hardened-step'
  | 'bad-origin'
  | 'bad-path'
  | 'multipath'
  | 'threshold'
  | 'too-many-keys'
  | 'duplicate-key'
  | 'mixed-networks'
  | 'not-ranged'
  | 'no-change-branch'
  | 'wrong-network';

/** A refused wallet description (the wallet API answers it with code 102). */
export class DescriptorError extends ReasonError<DescriptorReason> {}

export const refuse = (reason: DescriptorReason, message: string): never => {
  throw new DescriptorError(reason, message);
};
