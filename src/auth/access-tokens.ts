import DataLoader from 'dataloader';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { AppError, validationFailed, type ErrorDetail } from '../errors/app-error.js';
import { UUID_PATTERN } from '../graphql/builder.js';
import type { RequestContext, Runtime } from '../runtime.js';
import { CLIENT_ID_MAX_LENGTH, CLIENT_SECRET_MAX_LENGTH, hashSecret, secretHashKey, verifySecret } from './secrets.js';
import { oauthClientApps, oauthClients, revokedTokens } from './tables.js';
import { signAccessToken, verifyAccessToken, type AuthContext } from './tokens.js';
import { tokenFailureKeys, type ClientQuota } from './rate-limit.js';

export interface ClientCredentials {
  grantType: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The credentials came in an Authorization: Basic header (RFC 6749 2.3.1). */
  viaBasic: boolean;
  /** Who is asking, for the failure budgets: the socket's peer (an IPv6 address by its /64). */
  sourceAddress: string;
  /** RFC 6749 3.3: space-separated scopes, a subset of the client's; all of them when left out. */
  scope?: string | undefined;
  /** Space-separated app ids, a subset of the client's apps; all of them when left out. */
  appIds?: string | undefined;
}

/** 429 for a request over a budget of failed token requests. */
function throwIfBlocked(retryAfter: number | undefined, message = 'Too many failed authentication attempts'): void {
  if (retryAfter === undefined) return;
  throw new AppError('rate_limit_exceeded', message, { headers: { 'Retry-After': String(retryAfter) } });
}

const limits = { client_id: CLIENT_ID_MAX_LENGTH, client_secret: CLIENT_SECRET_MAX_LENGTH } as const;

/** Longest `scope` read: every scope there is, spelt out, fits several times over. */
export const SCOPE_MAX_LENGTH = 1024;
/** Most app ids one token request may name (a UUID and a space each). */
export const APP_IDS_MAX = 100;
/** RFC 6749 3.3 scope-token characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** An authenticated client: what a token of it may carry at most. */
export interface AuthenticatedClient {
  clientId: string;
  scopes: readonly string[];
  apps: readonly string[];
}

/** 400 invalid_client for a credential left out or longer than any client's. */
function credentialsPresent(input: Pick<ClientCredentials, 'clientId' | 'clientSecret'>): void {
  const missing = (['client_id', 'client_secret'] as const).filter((f) => !(f === 'client_id' ? input.clientId : input.clientSecret));
  if (missing.length > 0) {
    throw new AppError('invalid_client', `Missing ${missing.join(' and ')}`, {
      details: missing.map((field) => ({ field, code: 'required' as const, message: 'Required' })),
    });
  }
  // Before any lookup, hash or limiter key: no client has such an id or secret, and an
  // attacker-chosen megabyte must not be kept or hashed. A malformed credential is refused like
  // a missing one (400 invalid_client), not looked up and answered 401.
  const tooLong = (['client_id', 'client_secret'] as const).filter((f) => (f === 'client_id' ? input.clientId! : input.clientSecret!).length > limits[f]);
  if (tooLong.length > 0) {
    throw new AppError('invalid_client', `${tooLong.join(' and ')} too long`, {
      details: tooLong.map((field) => ({ field, code: 'too_long' as const, message: `At most ${limits[field]} characters` })),
    });
  }
}

/**
 * Client authentication (RFC 6749 2.3.1), shared by the token endpoints and the standard
 * revocation endpoint: the same bounds, the same failure budgets, the same answers.
 */
export async function authenticateClient(runtime: Runtime, input: Omit<ClientCredentials, 'grantType'>): Promise<AuthenticatedClient> {
  credentialsPresent(input);
  const clientId = input.clientId!;
  const { db } = runtime.database;
  const key = await secretHashKey(db);
  const failureKeys = tokenFailureKeys(key, clientId, input.sourceAddress);
  // Refused before the secret is checked while this address is over a failure budget.
  throwIfBlocked(await runtime.rateLimits.tokenAttemptRefused(failureKeys));
  // An id PostgreSQL text cannot hold (NUL) names no client: an unknown client, not a query error.
  const [client] = clientId.includes('\u0000') ? [] : await clientWithApps(db, clientId);
  // An unknown id costs the same HMAC as a known one, so timing does not reveal which ids exist.
  const check = await verifySecret(input.clientSecret!, client?.secretHash, key);
  // Concurrent guesses all passed the check above before any of them failed: only the failures
  // within the budget are told 401, and a right secret checked once the budget is spent is not
  // told apart from a wrong one (429 both). At most the budget's worth of answers tell anything.
  if (!client || !check.valid) {
    throwIfBlocked(await runtime.rateLimits.recordTokenFailure(failureKeys));
    throw new AppError('invalid_client', 'Client authentication failed', {
      status: 401,
      headers: input.viaBasic ? { 'WWW-Authenticate': 'Basic realm="switchboard"' } : undefined,
    });
  }
  throwIfBlocked(await runtime.rateLimits.tokenAttemptRefused(failureKeys));
  if (check.legacy) {
    // The old scheme's hash is replaced by the keyed one on first use, unless a rotation got there first.
    await db
      .update(oauthClients)
      .set({ secretHash: hashSecret(input.clientSecret!, key) })
      .where(and(eq(oauthClients.id, clientId), eq(oauthClients.secretHash, client.secretHash)));
  }
  return { clientId, scopes: client.scopes, apps: client.apps };
}

/** `scope` and `app_id` split into their items; only their form is checked here (no client yet). */
function requestedNarrowing(input: ClientCredentials): { scopes?: string[]; apps?: string[] } {
  const details: ErrorDetail[] = [];
  const split = (value: string | undefined) => (value === undefined ? undefined : value.split(' ').filter((s) => s !== ''));
  let scopes: string[] | undefined;
  let apps: string[] | undefined;
  if (input.scope !== undefined) {
    if (input.scope.length > SCOPE_MAX_LENGTH) details.push({ field: 'scope', code: 'too_long', message: `At most ${SCOPE_MAX_LENGTH} characters` });
    else if (!(scopes = split(input.scope))!.every((s) => SCOPE_TOKEN.test(s))) {
      details.push({ field: 'scope', code: 'invalid_format', message: 'Space-separated scope names' });
    }
  }
  if (input.appIds !== undefined) {
    if (input.appIds.length > APP_IDS_MAX * 40) details.push({ field: 'app_id', code: 'too_long', message: `At most ${APP_IDS_MAX} app ids` });
    else if ((apps = split(input.appIds))!.length > APP_IDS_MAX) details.push({ field: 'app_id', code: 'too_big', message: `At most ${APP_IDS_MAX} app ids` });
    else if (!apps!.every((a) => UUID_PATTERN.test(a))) details.push({ field: 'app_id', code: 'invalid_format', message: 'Space-separated app ids (UUIDs)' });
  }
  if (details.length > 0) throw validationFailed(details, 'invalid_request');
  return { scopes: scopes?.length ? scopes : undefined, apps: apps?.length ? apps.map((a) => a.toLowerCase()) : undefined };
}

/**
 * The token's reach: the requested subset of the client's scopes and apps (RFC 6749 3.3), all of
 * them when none is asked for. Asking for more than the client has is refused, never trimmed in
 * silence: a caller would otherwise learn only from a 403 later that its token cannot do what it asked.
 */
function narrowed(client: AuthenticatedClient, requested: { scopes?: string[]; apps?: string[] }): { scopes: string[]; apps: string[] } {
  const details: ErrorDetail[] = [];
  const lacking = requested.scopes?.filter((s) => !client.scopes.includes(s)) ?? [];
  if (lacking.length > 0) {
    details.push({ field: 'scope', code: 'invalid_value', message: `Not granted to this client: ${[...new Set(lacking)].slice(0, 10).join(' ')}` });
  }
  const foreign = requested.apps?.filter((a) => !client.apps.includes(a)) ?? [];
  if (foreign.length > 0) details.push({ field: 'app_id', code: 'invalid_value', message: 'Not an app of this client' });
  if (details.length > 0) throw validationFailed(details, 'invalid_request');
  return {
    // In the client's own order, each once.
    scopes: requested.scopes ? client.scopes.filter((s) => requested.scopes!.includes(s)) : [...client.scopes],
    apps: requested.apps ? client.apps.filter((a) => requested.apps!.includes(a)) : [...client.apps],
  };
}

/**
 * The client credentials grant, behind both token endpoints (/api/v1/oauth/token in the service's
 * envelope, /oauth/token as RFC 6749 answers it). A `scope` or `app_id` error is `invalid_request`
 * with the field in its details.
 */
export async function issueToken(runtime: Runtime, input: ClientCredentials) {
  if (input.grantType !== 'client_credentials') {
    throw new AppError('unsupported_grant_type', 'grant_type must be client_credentials', {
      details: [{ field: 'grant_type', code: input.grantType === undefined ? 'required' : 'invalid_value', message: 'must be client_credentials' }],
    });
  }
  // The form of every field is checked before any lookup, the credentials' first.
  credentialsPresent(input);
  const requested = requestedNarrowing(input);
  const client = await authenticateClient(runtime, input);
  const reach = narrowed(client, requested);
  throwIfBlocked(await runtime.rateLimits.tokenIssueRefused(client.clientId), `Too many tokens requested: at most ${runtime.config.TOKENS_PER_CLIENT_MINUTE} a minute per client`);
  const signed = await signAccessToken(runtime.keys, runtime.tokens, { clientId: client.clientId, ...reach }, runtime.clock.now());
  return { access_token: signed.token, token_type: 'Bearer' as const, expires_in: signed.expiresIn, scope: reach.scopes.join(' ') };
}

/** Node's whole request header limit (16 KiB): a longer token could never have been sent as a bearer. */
const REVOKE_TOKEN_MAX_LENGTH = 16 * 1024;

/**
 * The client and its app ids in one query: on the embedded database each query is a round trip
 * through one wasm connection, the largest cost of a token once secrets are checked by HMAC.
 */
function clientWithApps(db: Db, clientId: string) {
  return db
    .select({
      secretHash: oauthClients.secretHash,
      scopes: oauthClients.scopes,
      // text[], not uuid[]: both drivers parse a text array; app ids are UUIDs in their text form.
      apps: sql<string[]>`coalesce(array_agg(${oauthClientApps.appId}::text) filter (where ${oauthClientApps.appId} is not null), '{}')`,
    })
    .from(oauthClients)
    .leftJoin(oauthClientApps, eq(oauthClientApps.clientId, oauthClients.id))
    .where(eq(oauthClients.id, clientId))
    .groupBy(oauthClients.id);
}

/**
 * RFC 7009 semantics: success whether or not the token was valid. A token issued to another
 * client is left alone: a client can revoke only its own tokens.
 */
export async function revokeToken(ctx: RequestContext, token: string): Promise<void> {
  await revokeTokenOf(ctx.runtime, ctx.auth!.clientId, token);
}

/** Revokes `token` if it is a live token of `clientId`; anything else is left alone, in silence. */
export async function revokeTokenOf(runtime: Runtime, clientId: string, token: string): Promise<void> {
  // Surrounding white space (a token pasted from a file or a header) is not part of a JWT:
  // without the trim such a token was answered 200 and left valid.
  const trimmed = token.trim();
  // Longer than any header could carry: no usable token, and not worth verifying.
  if (trimmed.length > REVOKE_TOKEN_MAX_LENGTH) return;
  const target = await verifyAccessToken(runtime.keys, runtime.tokens, trimmed, runtime.clock.now());
  if (typeof target === 'string' || target.clientId !== clientId) return;
  await runtime.database.db
    .insert(revokedTokens)
    .values({ jti: target.jti, clientId: target.clientId, expiresAt: target.expiresAt })
    .onConflictDoNothing();
  const { database } = runtime;
  revocations.set(database, (revocations.get(database) ?? 0) + 1);
  embeddedAnswers.get(database)?.delete(target.jti);
}

/** A failure with `error` sent a bearer token that was refused; one without sent none. */
export type Authentication = { ok: true; auth: AuthContext; quota: ClientQuota } | { ok: false; message: string; error?: 'invalid_token' };

/**
 * The one query of every authenticated request: revocation and the client's quotas. Lookups of
 * requests that arrive together go to the database as one query (a DataLoader without a cache,
 * per database handle): under load a database round trip is the largest fixed cost of a request,
 * and N requests in flight share one. One query is in flight at a time: a request
 * arriving while one is waits for it to settle and joins the next, sent on the following turn of
 * the event loop with every request that arrived meanwhile. So while the database is away the
 * waiting requests do not queue up one query each on the lookup's single connection (each failed
 * connection attempt answered one of them, and the rest waited longer and longer); each batch
 * gets the next attempt's answer together (503). Revocation still takes effect at once: a batch's
 * query is sent after every request in it arrived, so it reads every revocation committed
 * before any of them began.
 */
const authBatches = new WeakMap<Db, DataLoader<TokenKey, AuthRow | undefined, string>>();

interface TokenKey {
  jti: string;
  clientId: string;
}

export interface AuthRow {
  revoked: boolean;
  rateMinute: number | null;
  rateHour: number | null;
  rateDay: number | null;
}

/**
 * Built once per handle, on Database.authDb: on PostgreSQL a statement prepared on the lookup's own
 * connection and planned once (src/db/client.ts), not on every request as the pool's are.
 */
function buildAuthLookup(db: Db) {
  const q = sql`unnest(${sql.placeholder('jtis')}::text[], ${sql.placeholder('clientIds')}::text[])`;
  return db
    .select({
      jti: sql<string>`q.jti`,
      clientId: oauthClients.id,
      revoked: sql<boolean>`${revokedTokens.jti} is not null`,
      rateMinute: oauthClients.rateMinute,
      rateHour: oauthClients.rateHour,
      rateDay: oauthClients.rateDay,
    })
    .from(sql`${q} as q(jti, client_id)`)
    .innerJoin(oauthClients, eq(oauthClients.id, sql`q.client_id`))
    .leftJoin(revokedTokens, eq(revokedTokens.jti, sql`q.jti`))
    .prepare('switchboard_auth_lookup');
}

function authBatch(db: Db) {
  let batch = authBatches.get(db);
  if (!batch) {
    const lookup = buildAuthLookup(db);
    /** The query in flight, settled either way; resolved when there is none. */
    let inFlight: Promise<unknown> = Promise.resolve();
    batch = new DataLoader<TokenKey, AuthRow | undefined, string>(
      async (keys) => {
        const unique = [...new Map(keys.map((k) => [tokenKey(k), k])).values()];
        const query = lookup.execute({ jtis: unique.map((k) => k.jti), clientIds: unique.map((k) => k.clientId) });
        inFlight = query.catch(() => undefined);
        const rows = await query;
        const byKey = new Map(rows.map((r) => [tokenKey(r), r]));
        return keys.map((k) => byKey.get(tokenKey(k)));
      },
      // Not a cache: every request reads the database, so a revocation counts at once; only the query is shared.
      { cache: false, batchScheduleFn: (dispatch) => void inFlight.then(() => setImmediate(dispatch)), maxBatchSize: 500 },
    );
    authBatches.set(db, batch);
  }
  return batch;
}

const tokenKey = (k: TokenKey) => `${k.clientId}\u0000${k.jti}`;

/**
 * Embedded PGlite only: one process owns the database (DATA_DIR is locked against every other
 * process, the CLI included), and that process writes every revocation (revokeToken forgets the
 * token's answer in the same request), so a token's lookup can be answered from memory without
 * a wasm query per request. On PostgreSQL another instance may revoke at any moment, so the
 * database is asked on every request. Only live answers are kept (a revoked
 * token or a missing client is asked again), at most 10,000, oldest first out.
 */
const EMBEDDED_ANSWERS = 10_000;
const embeddedAnswers = new WeakMap<Runtime['database'], Map<string, AuthRow>>();
/** Revocations written by this process: an answer read across one is not kept (it may predate it). */
const revocations = new WeakMap<Runtime['database'], number>();

async function lookUp(runtime: Runtime, auth: AuthContext): Promise<AuthRow | undefined> {
  const { database } = runtime;
  let answers = embeddedAnswers.get(database);
  if (!answers && database.kind === 'pglite') embeddedAnswers.set(database, (answers = new Map()));
  const known = answers?.get(auth.jti);
  if (known) return known;
  const before = revocations.get(database) ?? 0;
  const row = await authBatch(database.authDb).load({ jti: auth.jti, clientId: auth.clientId });
  if (answers && row && !row.revoked && (revocations.get(database) ?? 0) === before) {
    if (answers.size >= EMBEDDED_ANSWERS) answers.delete(answers.keys().next().value!);
    answers.set(auth.jti, row);
  }
  return row;
}

/**
 * Whether a token a long-lived stream was opened with still holds: not expired, not revoked and
 * its client not deleted (the same database answer as a request's, batched with theirs).
 */
export async function stillAuthorized(runtime: Runtime, auth: AuthContext): Promise<boolean> {
  if (auth.expiresAt.getTime() <= runtime.clock.now().getTime()) return false;
  const row = await lookUp(runtime, auth);
  return row !== undefined && !row.revoked;
}

/** Bearer token → caller, checked against revocation on every request. */
export async function authenticate(runtime: Runtime, authorization: string | undefined): Promise<Authentication> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return { ok: false, message: 'Missing bearer token' };
  const verified = await verifyAccessToken(runtime.keys, runtime.tokens, match[1]!, runtime.clock.now());
  if (verified === 'expired') return { ok: false, message: 'Token expired', error: 'invalid_token' };
  if (typeof verified === 'string') return { ok: false, message: 'Invalid token', error: 'invalid_token' };
  const row = await lookUp(runtime, verified);
  if (!row) return { ok: false, message: 'Client no longer exists', error: 'invalid_token' };
  if (row.revoked) return { ok: false, message: 'Token revoked', error: 'invalid_token' };
  const defaults = runtime.rateLimits.defaultQuota();
  return {
    ok: true,
    auth: verified,
    quota: { minute: row.rateMinute ?? defaults.minute, hour: row.rateHour ?? defaults.hour, day: row.rateDay ?? defaults.day },
  };
}
