import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { systemClock } from '../time/clock.js';
import { SIGNING_ALG, type SigningKeys } from './keys.js';
import { isScope, type Scope } from './scopes.js';

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** Who is calling: the verified claims of a bearer token. */
export interface AuthContext {
  clientId: string;
  scopes: ReadonlySet<Scope>;
  apps: ReadonlySet<string>;
  jti: string;
  expiresAt: Date;
}

interface SwitchboardClaims extends JWTPayload {
  scope: string;
  apps: string[];
  /** RFC 9068; optional on verify: a token without it is read by `sub`, which names the client too. */
  client_id?: string;
}

export async function signAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  subject: { clientId: string; scopes: readonly string[]; apps: readonly string[] },
  now: Date = systemClock.now(),
): Promise<{ token: string; jti: string; expiresIn: number }> {
  const jti = randomUUID();
  const issuedAt = Math.floor(now.getTime() / 1000);
  // RFC 9068 claims (client_id, scope, and the registered ones below) plus the app ids.
  const token = await new SignJWT({ client_id: subject.clientId, scope: subject.scopes.join(' '), apps: [...subject.apps] })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: keys.kid, typ: 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(subject.clientId)
    .setJti(jti)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + settings.ttlSeconds)
    .sign(keys.privateKey);
  return { token, jti, expiresIn: settings.ttlSeconds };
}

export type VerifyFailure = 'malformed' | 'expired' | 'invalid';

/**
 * Verified tokens by their exact text, per key set: a bearer token is sent again and again, and
 * an ES256 verification costs more CPU than the rest of a cached read. A hit is only as good as
 * the checks that cannot change for those bytes (signature, algorithm, issuer, audience); what
 * can change is checked on every hit: expiry, and that the signing key is still active
 * (`keys retire`). Revocation is checked by the caller against the database on every request.
 */
const VERIFIED_CACHE_SIZE = 10_000;
/** A verified token, with the issuer and audience it was verified against. */
interface Verified {
  auth: AuthContext;
  kid: string;
  issuer: string;
  audience: string;
}
const verifiedByKeys = new WeakMap<SigningKeys, Map<string, Verified>>();

function verifiedCache(keys: SigningKeys): Map<string, Verified> {
  let cache = verifiedByKeys.get(keys);
  if (!cache) verifiedByKeys.set(keys, (cache = new Map()));
  return cache;
}

/**
 * Verifies signature, algorithm (SIGNING_ALG only), issuer and audience. Revocation is checked
 * by the caller against the database. Returns the failure kind instead of throwing.
 */
export async function verifyAccessToken(
  keys: SigningKeys,
  settings: Pick<TokenSettings, 'issuer' | 'audience'>,
  token: string,
  now: Date = systemClock.now(),
): Promise<AuthContext | VerifyFailure> {
  const cache = verifiedCache(keys);
  // Keyed by the token itself (a key joining the settings would copy them every request); the settings
  // are part of what was verified, so the same text under other settings is verified anew.
  const key = token;
  const entry = cache.get(key);
  const hit = entry && entry.issuer === settings.issuer && entry.audience === settings.audience ? entry : undefined;
  if (hit) {
    if (hit.auth.expiresAt.getTime() <= now.getTime()) {
      cache.delete(key);
      return 'expired';
    }
    if (keys.publicKeys.has(hit.kid)) return hit.auth;
    cache.delete(key); // its key was retired or reloaded away: verify from scratch
  }
  const getKey: JWTVerifyGetKey = async (header) => {
    let key = header.kid ? keys.publicKeys.get(header.kid) : undefined;
    if (!key && header.kid && keys.onUnknownKid) {
      // A key rotated in on another instance: reload once, then decide.
      await keys.onUnknownKid();
      key = keys.publicKeys.get(header.kid);
    }
    if (!key) throw new errors.JWKSNoMatchingKey();
    return key;
  };
  try {
    const { payload, protectedHeader } = await jwtVerify<SwitchboardClaims>(token, getKey, {
      algorithms: [SIGNING_ALG],
      issuer: settings.issuer,
      audience: settings.audience,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      currentDate: now,
    });
    const auth = toAuthContext(payload);
    if (!auth) return 'invalid';
    if (cache.size >= VERIFIED_CACHE_SIZE) cache.delete(cache.keys().next().value!); // oldest first
    cache.delete(key); // re-inserted last: the eviction order stays oldest first
    cache.set(key, { auth, kid: protectedHeader.kid!, issuer: settings.issuer, audience: settings.audience });
    return auth;
  } catch (error) {
    if (error instanceof errors.JWTExpired) return 'expired';
    if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'malformed';
    return 'invalid';
  }
}

function toAuthContext(payload: SwitchboardClaims): AuthContext | undefined {
  if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return undefined;
  if (typeof payload.scope !== 'string' || !Array.isArray(payload.apps)) return undefined;
  // A client credentials token's subject is its client: a token naming two clients is no token of ours.
  if (payload.client_id !== undefined && payload.client_id !== payload.sub) return undefined;
  return {
    clientId: payload.sub,
    scopes: new Set(payload.scope.split(' ').filter(isScope)),
    apps: new Set(payload.apps.filter((a): a is string => typeof a === 'string')),
    jti: payload.jti,
    expiresAt: new Date(payload.exp * 1000),
  };
}
