import { expect } from 'chai';
import { apiBase, call, newSeller } from '../support/api';

describe('headers of the HTML pages', () => {
  it("when authorize.php is opened, then it cannot be framed and carries helmet's headers", async () => {
    const res = await fetch(`${await apiBase()}/v1.1/authorize.php?response_type=code&client_id=nobody`);
    expect(res.headers.get('content-type')).to.contain('text/html');
    expect(res.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).not.to.contain('form-action');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('strict-transport-security')).to.contain('max-age=');
  });

  it("when an operator page is opened, then it carries helmet's headers", async () => {
    const res = await fetch(`${await apiBase()}/operator/queues/`);
    expect(res.headers.get('content-security-policy')).to.contain("default-src 'self'");
    expect(res.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
  });

  it('when the API answers JSON, then it keeps its own headers without a page CSP', async () => {
    const seller = await newSeller();
    const res = await call('system/currency/', { token: seller.token });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.equal(null);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
  });
});
