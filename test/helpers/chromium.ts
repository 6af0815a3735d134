import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

// Debian's chromium driven by playwright-core (which downloads no browser of its own). Without a
// chromium binary the browser tests skip and say so.

function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const chromiumPath = findChromium();

/**
 * '' when chromium is there; otherwise why the file's tests skip, to append to its describe's
 * name (and written to the console under the file's name).
 */
export function chromiumSkipReason(file: string): string {
  if (chromiumPath) return '';
  const reason = ' [SKIPPED: no chromium binary found; install it with `apt-get install chromium` or set CHROMIUM_PATH]';
  console.warn(`${file}:${reason}`);
  return reason;
}

/**
 * Launches headless chromium in beforeAll and closes it in afterAll, in the enclosing describe
 * (call it inside `describe.skipIf(!chromiumPath)`, so nothing starts without one). `browser` is
 * read on use, inside hooks and tests.
 */
export function useChromium(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });
  afterAll(() => browser?.close());
  return {
    get browser() {
      if (!browser) throw new Error('useChromium: the browser is not there yet; read it inside a hook or test');
      return browser;
    },
  };
}
