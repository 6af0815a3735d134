import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// DESIGN section 2: client secrets stored hashed (scrypt), compared in constant time.
const params = { N: 16384, r: 8, p: 1, keylen: 32 };

function scryptAsync(secret: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function generateSecret(): string {
  return `sbs_${randomBytes(32).toString('base64url')}`;
}

export function generateClientId(): string {
  return `sbc_${randomBytes(12).toString('base64url')}`;
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, params.keylen, { N: params.N, r: params.r, p: params.p });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, saltText, keyText] = stored.split('$');
  if (kind !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(saltText, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

/** A hash to compare against when the client does not exist, so timing does not reveal it. */
export const decoyHash = hashSecret('decoy-secret-never-valid');
