import { expect } from 'chai';
import { participatingMarketplaces, SpApiApplication, spApiConsentGrant, spApiConsentUrl } from '../../lib/portals/amazon/sp-api-consent';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import { Sandbox, startSandbox } from '../fleet/support';
import { failure } from '../support/failure';

describe('market_d: connecting a seller through Amazon consent (SP-API website authorization workflow)', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox.close();
  });
  const app = (): SpApiApplication => ({
    applicationId: 'amzn1.sp.solution.kontor-test',
    clientId: 'amzn1.application-oa2-client.kontor',
    clientSecret: 'secret',
    redirectUri: 'https://kontor.example/market_d/consent',
    sellerCentralUrl: sandbox.url,
    lwaUrl: `${sandbox.url}/auth/o2/token`,
    draft: true,
  });

  it('the seller opens the link, Amazon sends the code back with state and seller id; the code becomes a refresh token once; the marketplaces come from the account; orders are then fetched from them', async () => {
    const account = 600000 + Math.floor(Math.random() * 100000);
    const link = spApiConsentUrl(app(), 'state-42');
    const url = new URL(link);
    expect(url.pathname).to.equal('/apps/authorize/consent');
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      application_id: 'amzn1.sp.solution.kontor-test',
      state: 'state-42',
      redirect_uri: 'https://kontor.example/market_d/consent',
      version: 'beta',
    });
    // The sandbox's seller signs in as portal account `account` and consents.
    const consented = await fetch(`${link}&portal_account=${account}`, { redirect: 'manual' });
    expect(consented.status).to.equal(302);
    const back = new URL(consented.headers.get('location')!);
    expect(back.origin + back.pathname).to.equal('https://kontor.example/market_d/consent');
    expect(back.searchParams.get('state')).to.equal('state-42');
    const code = back.searchParams.get('spapi_oauth_code')!;
    const sellerId = back.searchParams.get('selling_partner_id')!;

    const grant = await spApiConsentGrant(app(), code, sellerId);
    expect(grant).to.deep.equal({ refresh_token: `Atzr|sandbox-${account}`, seller_id: `SANDBOX${account}` });
    const again = await failure(spApiConsentGrant(app(), code, sellerId));
    expect(again.id).to.equal('portal_refused');
    expect(again.message).to.contain('invalid_grant').and.contain('open the consent link again');

    await fetch(`${sandbox.url}/_sandbox/amazon/marketplaces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: account, marketplace_ids: ['A1PA6795UKMFR9', 'A13V1IB3VIYZZH'] }),
    });
    const credentials = { client_id: app().clientId, client_secret: app().clientSecret, refresh_token: grant.refresh_token, seller_id: grant.seller_id };
    const marketplaces = (await participatingMarketplaces({ portalAccountId: account, baseUrl: sandbox.url, credentials })).served;
    expect(marketplaces).to.deep.equal(['A1PA6795UKMFR9', 'A13V1IB3VIYZZH']);

    const page = await new MarketDAdapter().fetchOrders(
      { portalAccountId: account, baseUrl: sandbox.url, credentials: { ...credentials, marketplace_id: marketplaces.join(',') } },
      new Date(Date.now() - 60_000),
      null,
    );
    expect(page.orders).to.deep.equal([]);
    const search = sandbox.state.requests.filter((r) => r.portalAccount === String(account) && r.path === '/orders/2026-01-01/orders');
    expect(search.map((r) => [r.status, r.query!.marketplaceIds])).to.deep.equal([[200, 'A1PA6795UKMFR9,A13V1IB3VIYZZH']]);
  });
});
