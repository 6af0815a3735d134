import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/log.js';
import type { Clock } from '../../src/time/clock.js';
import { startTestServer, type Tenant, type TestServer } from './server.js';

export interface UseServerOptions {
  /** Config values over the test defaults, as startTestServer takes them. */
  overrides?: Partial<Record<keyof Config, string>>;
  logger?: Logger;
  /** The server's clock (fixedClock for a known "now"); the system clock by default. */
  clock?: Clock;
  /** A tenant made once the server is up: `true` for every scope, or the scopes and rate to give it. */
  tenant?: true | Parameters<TestServer['tenant']>[0];
}

export interface ServerContext {
  server: TestServer;
  /** Only with the `tenant` option. */
  tenant: Tenant;
}

/**
 * Starts a test server in beforeAll and closes it in afterAll, in the enclosing describe (or
 * the file). `server` and `tenant` are live views: read them inside hooks and tests, where
 * destructuring at the top of the file is safe because each property is looked up on use.
 */
export function useServer(options: UseServerOptions = {}): ServerContext {
  let server: TestServer | undefined;
  let tenant: Tenant | undefined;
  beforeAll(async () => {
    server = await startTestServer(options.overrides, { ...(options.logger && { logger: options.logger }), ...(options.clock && { clock: options.clock }) });
    if (options.tenant) tenant = await server.tenant(options.tenant === true ? undefined : options.tenant);
  });
  afterAll(() => server?.close());
  return {
    server: live('server', () => server),
    tenant: live('tenant', () => tenant, options.tenant ? undefined : 'useServer was called without the tenant option'),
  };
}

/** An object whose every property is read from `current()` at the time of use. */
function live<T extends object>(name: string, current: () => T | undefined, missing?: string): T {
  const target = (): T => {
    const value = current();
    if (value) return value;
    throw new Error(missing ?? `useServer: ${name} is not there yet; read it inside a hook or test, after useServer's beforeAll`);
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    set: () => {
      throw new Error(`useServer: ${name} is read-only`);
    },
  });
}
