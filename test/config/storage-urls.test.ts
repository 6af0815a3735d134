import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('DATABASE_DIRECT_URL and DATABASE_REPLICA_URL', () => {
  it('are read with DATABASE_URL', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://app@pooler:6432/switchboard',
      DATABASE_DIRECT_URL: 'postgres://app@primary:5432/switchboard',
      DATABASE_REPLICA_URL: 'postgres://app@replica:5432/switchboard',
    });
    expect(config.DATABASE_DIRECT_URL).toBe('postgres://app@primary:5432/switchboard');
    expect(config.DATABASE_REPLICA_URL).toBe('postgres://app@replica:5432/switchboard');
  });

  it('are refused without DATABASE_URL, each named', () => {
    const attempt = () => loadConfig({ DATABASE_DIRECT_URL: 'postgres://a@b/c', DATABASE_REPLICA_URL: 'postgres://a@d/c' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/DATABASE_DIRECT_URL: requires DATABASE_URL.*DATABASE_REPLICA_URL: requires DATABASE_URL/);
  });

  it('empty counts as unset, as for DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_DIRECT_URL: '', DATABASE_REPLICA_URL: '' }).DATABASE_REPLICA_URL).toBeUndefined();
  });

  it('a URL that is not one is refused', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a@b/c', DATABASE_REPLICA_URL: 'replica' })).toThrow(/DATABASE_REPLICA_URL/);
  });
});
