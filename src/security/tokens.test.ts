import { describe, it, expect } from 'vitest';
import { constantTimeEqual, hashToken, newToken } from './tokens.ts';

describe('tokens', () => {
  it('hashing a token gives stable lowercase SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashToken('abc')).toBe(hashToken('abc'));
    expect(hashToken('abd')).not.toBe(hashToken('abc'));
    expect(hashToken('')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('new tokens are URL-safe and distinct', () => {
    const a = newToken();
    const b = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(newToken(16)).toHaveLength(22);
  });

  it('constantTimeEqual is true only for identical strings', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret1')).toBe(false);
    expect(constantTimeEqual('secret1', 'secret')).toBe(false);
    expect(constantTimeEqual('é', 'e')).toBe(false);
  });
});
