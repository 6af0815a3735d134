import { describe, expect, it, vi } from 'vitest';
import { isTypeFetchFailure, typeFetchGuard } from '../../src/db/type-fetch-guard.js';
import type { Logger } from '../../src/log.js';

// postgres.js's own array-type query, as its errors carry it (node_modules/postgres/src/connection.js).
const typeQuery = `
      select b.oid, b.typarray
      from pg_catalog.pg_type a
      left join pg_catalog.pg_type b on b.oid = a.typelem
      where a.typcategory = 'A'
      group by b.oid, b.typarray
      order by b.oid
    `;

describe('the postgres.js array-type rejection guard', () => {
  const logger = { warn: vi.fn() } as unknown as Logger;
  const guard = typeFetchGuard(logger);

  it('survives the dropped array-type query failing (connection closed mid-startup) and logs it', () => {
    const error = Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED', query: typeQuery });
    expect(isTypeFetchFailure(error)).toBe(true);
    expect(() => guard(error)).not.toThrow();
    expect(logger.warn).toHaveBeenCalledOnce();
  });

  it('rethrows every other unhandled rejection, so Node still ends the process', () => {
    const ours = Object.assign(new Error('boom'), { query: 'select * from messages' });
    expect(() => guard(ours)).toThrow('boom');
    expect(() => guard(new Error('plain'))).toThrow('plain');
    expect(() => guard(undefined)).toThrow();
  });
});
