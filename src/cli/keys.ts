import { retireSigningKey, rotateSigningKeys } from '../auth/keys.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, requireOption, UsageError } from './args.js';

/**
 * With JWT_PRIVATE_JWK the configured key is the signing key (auth/keys.ts): a rotated-in key
 * would never sign, and retiring the configured key would leave instances signing with a key
 * every verifier refuses. The key is changed by changing JWT_PRIVATE_JWK and restarting.
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
  const grace = runtime.config.TOKEN_TTL_SECONDS + Math.ceil(runtime.config.KEYS_RELOAD_MS / 1000);
  return rotateSigningKeys(runtime.database.db, grace);
}

/** `keys retire --kid KID`: its tokens stop verifying on every instance within KEYS_RELOAD_MS (a compromised key). */
export async function keysRetire(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { kid: { type: 'string' } });
  refuseWithConfiguredKey(runtime, 'retire');
  return retireSigningKey(runtime.database.db, requireOption(values.kid, 'kid'));
}
