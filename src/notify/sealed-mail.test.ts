import { describe, expect, it } from 'vitest';
import { MasterKey } from '../security/master-key.ts';
import { openSealedMail, sealedMailPayload } from './sealed-mail.ts';

const key = MasterKey.fromBytes(new Uint8Array(32).fill(9));

describe('sealed mail payloads', () => {
  it('hold the message only sealed, and open back to it with the master key', () => {
    const payload = sealedMailPayload(key, 'dashboard_otp', { subject: 'Your code', text: 'code 314159\n' });
    expect(JSON.stringify(payload)).not.toContain('314159');
    expect(JSON.stringify(payload)).not.toContain('Your code');
    expect(payload.event).toBe('dashboard_otp');
    expect(openSealedMail(key, JSON.parse(JSON.stringify(payload)) as Record<string, unknown>)).toEqual({ subject: 'Your code', text: 'code 314159\n' });
  });

  it('leave ordinary event payloads to the event renderer, and refuse another key', () => {
    expect(openSealedMail(key, { event: 'payment', status: 'confirmed' })).toBeNull();
    const payload = sealedMailPayload(key, 'dashboard_otp', { subject: 's', text: 't' });
    expect(() => openSealedMail(MasterKey.fromBytes(new Uint8Array(32).fill(1)), payload)).toThrow();
  });
});
