import { exportJWK, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SIGNING_ALG, type SigningKeys } from '../../src/auth/keys.js';
import { signAccessToken, verifyAccessToken } from '../../src/auth/tokens.js';

// verifyAccessToken keeps verified tokens by their text; these check what a cache hit must
// still refuse: an expired token, a token of a retired key, and any other text.
const settings = { issuer: 'https://switchboard.test', audience: 'switchboard', ttlSeconds: 60 };

async function keySet(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = `kid-${Math.random().toString(36).slice(2)}`;
  return {
    kid,
    privateKey,
    publicKeys: new Map([[kid, publicKey]]),
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid }] },
    cursorKeys: [],
  };
}

const subject = { clientId: 'client-1', scopes: ['messages:read'], apps: ['app-1'] };

afterEach(() => vi.useRealTimers());

describe('verified-token cache', () => {
  it('answers a repeated token with the same claims', async () => {
    const keys = await keySet();
    const { token, jti } = await signAccessToken(keys, settings, subject);
    const first = await verifyAccessToken(keys, settings, token);
    const second = await verifyAccessToken(keys, settings, token);
    expect(first).toMatchObject({ clientId: 'client-1', jti });
    expect(second).toBe(first);
  });

  it('says expired for a cached token once its exp has passed', async () => {
    const keys = await keySet();
    const { token } = await signAccessToken(keys, settings, subject);
    expect(typeof (await verifyAccessToken(keys, settings, token))).toBe('object');
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ['Date'] });
    expect(await verifyAccessToken(keys, settings, token)).toBe('expired');
    expect(await verifyAccessToken(keys, settings, token)).toBe('expired');
  });

  it('refuses a cached token once its key is no longer active', async () => {
    const keys = await keySet();
    const { token } = await signAccessToken(keys, settings, subject);
    expect(typeof (await verifyAccessToken(keys, settings, token))).toBe('object');
    keys.publicKeys = new Map(); // what refreshSigningKeys leaves after `keys retire`
    expect(await verifyAccessToken(keys, settings, token)).toBe('invalid');
  });

  it('does not let a token that differs by one character ride on a cached one', async () => {
    const keys = await keySet();
    const { token } = await signAccessToken(keys, settings, subject);
    await verifyAccessToken(keys, settings, token);
    const [header, claims, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expect(await verifyAccessToken(keys, settings, `${header}.${claims}.${flipped}`)).toBe('invalid');
  });

  it('verifies anew under other issuer or audience settings', async () => {
    const keys = await keySet();
    const { token } = await signAccessToken(keys, settings, subject);
    expect(typeof (await verifyAccessToken(keys, settings, token))).toBe('object');
    expect(await verifyAccessToken(keys, { ...settings, audience: 'another-api' }, token)).toBe('invalid');
    expect(await verifyAccessToken(keys, { ...settings, issuer: 'https://elsewhere.test' }, token)).toBe('invalid');
  });

  it('keeps key sets apart: a token verified under one set is not valid under another', async () => {
    const a = await keySet();
    const b = await keySet();
    const { token } = await signAccessToken(a, settings, subject);
    await verifyAccessToken(a, settings, token);
    expect(await verifyAccessToken(b, settings, token)).toBe('invalid');
  });
});
