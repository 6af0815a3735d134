import { retireSigningKey, rotateSigningKeys } from '../auth/keys.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, requireOption } from './args.js';

/**
 * `keys rotate`: a new signing key, used by every instance from its next key refresh
 * (KEYS_RELOAD_MS); tokens of older keys verify until they expire, and keys with no valid token
 * left are retired. Prints {"kid", "retired": [...]}.
 */
export async function keysRotate(runtime: Runtime, argv: string[]) {
  parseCommandArgs(argv, {});
  const grace = runtime.config.TOKEN_TTL_SECONDS + Math.ceil(runtime.config.KEYS_RELOAD_MS / 1000);
  return rotateSigningKeys(runtime.database.db, grace);
}

/** `keys retire --kid KID`: its tokens stop verifying on every instance within KEYS_RELOAD_MS (a compromised key). */
export async function keysRetire(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { kid: { type: 'string' } });
  return retireSigningKey(runtime.database.db, requireOption(values.kid, 'kid'));
}
