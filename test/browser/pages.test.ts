import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, chromiumSkipReason, useChromium } from '../helpers/chromium.js';
import { useServer } from '../helpers/use-server.js';

// The two pages people open, in a real headless browser (Debian's chromium driven by
// playwright-core): each must render and log no console error.

const skipReason = chromiumSkipReason('test/browser/pages.test.ts');
// Each run saves to docs/screenshots/latest (ignored by git); UPDATE_SCREENSHOTS=1 refreshes the
// committed ones in docs/screenshots that the docs show.
const screenshotRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const screenshots = process.env.UPDATE_SCREENSHOTS === '1' ? screenshotRoot : join(screenshotRoot, 'latest');

/** A page that records console errors, uncaught exceptions and failed requests. */
async function openPage(chrome: ReturnType<typeof useChromium>): Promise<{ page: Page; problems: string[] }> {
  const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  return { page, problems };
}

describe.skipIf(!chromiumPath)(`pages in headless Chromium${skipReason}`, () => {
  // Inside the skipped describe: no server or browser is started without chromium.
  const { server, tenant } = useServer({ tenant: true });
  const chrome = useChromium();
  beforeAll(() => void mkdirSync(screenshots, { recursive: true }));

  it('/docs renders every operation of the OpenAPI document, without console errors', async () => {
    const { page, problems } = await openPage(chrome);
    await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 20_000 });
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    // Swagger UI renders each webhook of the document as an operation too.
    const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'servers').length, 0);
    expect(await page.locator('.swagger-ui .opblock').count()).toBe(operations);
    await expect.poll(() => page.locator('.swagger-ui .info .title').textContent()).toContain('Switchboard REST API');
    // The security schemes are offered (Authorize button).
    expect(await page.locator('.swagger-ui .btn.authorize').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(screenshots, 'api-reference.png') });
    await page.close();
    expect(problems).toEqual([]);
  });

  it('/graphql opens GraphiQL with a tab per domain, loads the schema and runs the Viewer example', async () => {
    const { page, problems } = await openPage(chrome);
    // The user pasted a token into the Headers tab: every request from the page carries it.
    await page.route('**/graphql', (route) => route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${tenant.accessToken}` } }));
    await page.goto(`${server.url}/graphql`, { waitUntil: 'load' });
    await page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    await expect.poll(() => page.locator('.graphiql-tab').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(6);
    await page.locator('.graphiql-tab').first().click();
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => page.locator('.result-window').textContent(), { timeout: 20_000 }).toContain(tenant.clientId);
    await page.screenshot({ path: join(screenshots, 'graphiql.png') });
    await page.close();
    expect(problems).toEqual([]);
  });
});
