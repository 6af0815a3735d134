import { decodeJwt } from 'jose';
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumPath, chromiumSkipReason, useChromium } from '../helpers/chromium.js';
import { useServer } from '../helpers/use-server.js';

// Swagger UI's "Authorize" with client credentials, in a real headless browser: it posts to the
// document's tokenUrl (the RFC 6749 endpoint), reads the token from the standard answer, and
// "Try it out" then sends it as a bearer token.

const skipReason = chromiumSkipReason('test/browser/docs-authorize.test.ts');

describe.skipIf(!chromiumPath)(`/docs Authorize in headless Chromium${skipReason}`, () => {
  // Inside the skipped describe: no server or browser is started without chromium.
  const { server, tenant } = useServer({ tenant: true });
  const chrome = useChromium();

  it('client credentials through Swagger UI get a token from /oauth/token, and Try it out sends it', { timeout: 120_000 }, async () => {
    const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    const requests: Request[] = [];
    page.on('request', (req) => requests.push(req));

    await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 20_000 });
    await page.locator('.swagger-ui .btn.authorize').first().click();
    await page.locator('#client_id_clientCredentials').fill(tenant.clientId);
    await page.locator('#client_secret_clientCredentials').fill(tenant.clientSecret);
    await page.locator('[id="analytics:read-clientCredentials-checkbox-oauth2"] + label').click();
    const tokenResponse = page.waitForResponse((res) => new URL(res.url()).pathname === '/oauth/token');
    await page.locator('button[aria-label="Apply given OAuth2 credentials"]').click();
    const token = await tokenResponse;
    expect(token.status()).toBe(200);
    // Swagger UI's default client authentication: HTTP Basic (client_secret_basic).
    expect(token.request().headers().authorization).toMatch(/^Basic /);
    expect(token.request().postData()).toContain('grant_type=client_credentials');
    const issued = (await token.json()) as { access_token: string; scope: string };
    expect(issued.scope).toBe('analytics:read');
    await page.locator('.modal-ux .btn-done').first().click();

    const operation = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/analytics/{appId}/tags"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('input[placeholder="appId"]').fill(tenant.appId);
    const apiResponse = page.waitForResponse((res) => new URL(res.url()).pathname === `/api/v1/analytics/${tenant.appId}/tags`);
    await operation.locator('.execute').click();
    const res = await apiResponse;
    expect(res.status()).toBe(200);
    const sent = res.request().headers().authorization ?? '';
    expect(sent).toBe(`Bearer ${issued.access_token}`);
    expect(decodeJwt(issued.access_token)).toMatchObject({ client_id: tenant.clientId, scope: 'analytics:read' });
    expect(requests.some((r) => new URL(r.url()).pathname === '/api/v1/oauth/token')).toBe(false);
    await page.close();
    expect(problems).toEqual([]);
  });
});
