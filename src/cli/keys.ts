import { keyGraceSeconds, retireSigningKey, rotateSigningKeys } from '../auth/keys.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, requireOption, UsageError } from './args.js';

/**
 * With JWT_PRIVATE_JWK the configured key is the signing key (auth/keys.ts): a rotated-in key
 * would never sign. The key is changed by changing JWT_PRIVATE_JWK and restarting.
 */
function refuseWithConfiguredKey(runtime: Runtime, command: string): void {
  if (runtime.config.JWT_PRIVATE_JWK !== undefined) {
    throw new UsageError(`keys ${command} manages generated keys; with JWT_PRIVATE_JWK set, change that setting and restart instead`);
  }
}

/**
 * `keys rotate`: a new signing key, used by every instance from its next key refresh
 * (KEYS_RELOAD_MS); tokens of older keys verify until they expire, and keys with no valid token
 * left are retired. Prints {"kid", "retired": [...]}.
 */
export async function keysRotate(runtime: Runtime, argv: string[]) {
  parseCommandArgs(argv, {});
  refuseWithConfiguredKey(runtime, 'rotate');
  return rotateSigningKeys(runtime.database.db, keyGraceSeconds(runtime.config));
}

/**
 * `keys retire --kid KID`: its tokens stop verifying on every instance within KEYS_RELOAD_MS (a
 * compromised key). Also with JWT_PRIVATE_JWK, for a key it replaced (the newest key, which signs,
 * is refused either way).
 */
export async function keysRetire(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { kid: { type: 'string' } });
  return retireSigningKey(runtime.database.db, requireOption(values.kid, 'kid'));
}
