/**
 * The consent page in a real browser (Debian's chromium through playwright-core): what a seller
 * sees and does. Screenshots go to tmp/screenshots/ (git-ignored) for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPortalAccount } from '../lib/admin/portal-account-admin.service';
import { createClient } from '../lib/auth/client.service';
import { apiBase, call, newSeller, Seller } from './support/api';
import { launchChromium } from './support/browser';
import { root } from './support/process';

const shots = path.join(root, 'tmp', 'screenshots');
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('authorize.php in headless Chromium (issue 16.1)', function () {
  this.timeout(60000);
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let callback: http.Server;
  let redirectUri = '';
  const arrived: URL[] = [];
  let seller: Seller;
  let client: { client_id: string; client_secret: string };

  const authorizeUrl = async (query: Record<string, string>) =>
    `${await apiBase()}/v1.1/authorize.php?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, ...query })}`;
  const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  /** Waits for the browser to land on the client's callback; answers the URL it landed on. */
  const landed = async () => {
    await page.waitForURL(`${redirectUri}**`);
    const url = new URL(page.url());
    expect(arrived.map(String)).to.include(url.toString());
    return url;
  };

  before(async () => {
    mkdirSync(shots, { recursive: true });
    // The client's redirect_uri: a local server standing in for the integrator's callback.
    callback = http.createServer((req, res) => {
      if (req.url?.startsWith('/oauth/callback')) arrived.push(new URL(req.url, redirectUri));
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Integrator</title><p>Back at the integrator.</p>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/oauth/callback`;
    seller = await newSeller();
    await createPortalAccount(seller.id, { name: 'Shop B', platform: 'shop_g' });
    client = await createClient('Acme ERP', redirectUri);
    browser = await launchChromium();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context.close();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
  });

  it('when the seller ticks two of three rights, signs in and allows, then the code arrives with state and buys a token with exactly those rights', async () => {
    await page.goto(await authorizeUrl({ scope: 'order_r order_w stock_r', state: 'state-42' }));
    await expect(await page.title()).to.contain('Acme ERP');
    await shot('1-sign-in');
    await page.locator('input[name=scope_item][value=order_w]').uncheck();
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill(seller.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await shot('2-portal-account');
    expect(await page.locator('input[name=portal_account]').count()).to.equal(3);
    await page.getByText('All portal accounts').click();
    await page.getByRole('button', { name: 'Allow' }).click();
    const target = await landed();
    expect(target.searchParams.get('state')).to.equal('state-42');
    const code = target.searchParams.get('code')!;
    const token = await call('token.php', {
      headers: { Authorization: basic(client.client_id, client.client_secret) },
      body: { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
    });
    expect(token.status, token.text).to.equal(200);
    expect(token.body.scope).to.equal('order_r stock_r');
  });

  it('when the seller presses Deny, then the browser is sent back with error=access_denied and state', async () => {
    await page.goto(await authorizeUrl({ scope: 'order_r', state: 'deny-me' }));
    await page.getByRole('button', { name: 'Deny' }).click();
    const target = await landed();
    expect(target.searchParams.get('error')).to.equal('access_denied');
    expect(target.searchParams.get('state')).to.equal('deny-me');
    expect(target.searchParams.has('code')).to.equal(false);
  });

  it('when the password is wrong, then the form comes back with the message and the rights as ticked', async () => {
    const codes = arrived.length;
    await page.goto(await authorizeUrl({ scope: 'order_r stock_r' }));
    await page.locator('input[name=scope_item][value=order_r]').uncheck();
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    await shot('3-wrong-password');
    expect(await page.getByRole('alert').textContent()).to.contain('The login or password is wrong');
    expect(await page.locator('input[name=scope_item][value=order_r]').isChecked()).to.equal(false);
    expect(await page.locator('input[name=scope_item][value=stock_r]').isChecked()).to.equal(true);
    expect(await page.locator('input[name=scope_item]').count()).to.equal(2);
    expect(await page.getByLabel('Login').inputValue()).to.equal(seller.login);
    expect(await page.getByLabel('Password').inputValue()).to.equal('');
    expect(arrived.length).to.equal(codes);
  });

  it('when the seller unticks every right and continues, then access_denied', async () => {
    await page.goto(await authorizeUrl({ scope: 'order_r stock_r', state: 'none' }));
    for (const box of await page.locator('input[name=scope_item]').all()) await box.uncheck();
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill(seller.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const target = await landed();
    expect(target.searchParams.get('error')).to.equal('access_denied');
    expect(target.searchParams.get('state')).to.equal('none');
  });

  it('when opened on a phone, then it fits the screen without sideways scrolling and its controls are large enough to tap', async () => {
    await context.close();
    context = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    page = await context.newPage();
    await page.goto(await authorizeUrl({ scope: 'order_r order_w stock_r stock_w customer_r' }));
    await shot('4-phone-sign-in');
    const width = await page.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    expect(width.scroll).to.be.at.most(width.client);
    for (const control of [page.getByRole('button', { name: 'Continue' }), page.getByLabel('Password')]) {
      const box = (await control.boundingBox())!;
      expect(box.height).to.be.at.least(44);
      expect(box.x + box.width).to.be.at.most(375);
    }
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill(seller.password);
    await page.getByRole('button', { name: 'Continue' }).tap();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await shot('5-phone-portal-account');
    const after = await page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth');
    expect(after).to.equal(true);
  });

  it('when another site frames the page, then the browser refuses to show it', async () => {
    const framedUrl = await authorizeUrl({ scope: 'order_r' });
    const framing = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><p>Evil site</p><iframe src="${framedUrl}" width="600" height="400"></iframe>`);
    });
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    try {
      // Another origin (localhost, not 127.0.0.1); 'load' waits for the frame too.
      await page.goto(`http://localhost:${(framing.address() as AddressInfo).port}/`, { waitUntil: 'load' });
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame, 'the iframe').not.to.equal(undefined);
      expect(await frame!.locator('input[name=password]').count()).to.equal(0);
      await shot('6-framed');
    } finally {
      await new Promise((resolve) => framing.close(resolve));
    }
  });
});
