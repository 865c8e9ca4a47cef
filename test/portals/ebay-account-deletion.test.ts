import { expect } from 'chai';
import { ebayChallengeResponse, EbayNotificationRefused, readEbayDeletion } from '../../lib/portals/ebay/ebay-account-deletion';
import { failure } from '../support/failure';
import { sandboxForSuite } from './sandbox-server';

describe('eBay Marketplace Account Deletion: the challenge answer and signed notifications', function () {
  this.timeout(20000);
  let url: string;
  sandboxForSuite((sandbox) => ({ url } = sandbox));

  /** The Notification API's getPublicKey, as the endpoint would call it. */
  const publicKey = async (kid: string) =>
    (await (await fetch(`${url}/commerce/notification/v1/public_key/${encodeURIComponent(kid)}`)).json()) as { key: string };
  const notice = async (username: string) =>
    (await (
      await fetch(`${url}/_sandbox/ebay/account_deletion`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username, user_id: 'u-1' }),
      })
    ).json()) as { body: string; headers: Record<string, string> };

  it('when eBay sends the challenge, then the answer is the hex SHA-256 of challenge code, verification token and endpoint', () => {
    // Computed apart (Python hashlib) from the values of eBay's guide's shape.
    expect(
      ebayChallengeResponse('a8628072-3d33-45ee-9004-bee86830a22d', '71745723-d031-455c-bfa5-f90d11b4f20a', 'https://kontor.example/ebay/account-deletion'),
    ).to.deep.equal({ challengeResponse: '45d2604e2d553c340aa189ad06f8ea59f6104233d015fc6bd9a7166e1a249b8a' });
  });

  it('when a signed notification arrives, then its user is read; a changed body, a foreign signature or none is refused with 412', async () => {
    const { body, headers } = await notice('cupfan');
    const user = await readEbayDeletion(body, headers['X-EBAY-SIGNATURE'], publicKey);
    expect(user).to.deep.include({ username: 'cupfan', userId: 'u-1' });
    expect(user.notificationId).to.be.a('string').and.not.equal('');
    const forged = body.replace('cupfan', 'someone');
    const refused = await failure(readEbayDeletion(forged, headers['X-EBAY-SIGNATURE'], publicKey));
    expect(refused).to.be.instanceOf(EbayNotificationRefused);
    expect((refused as unknown as EbayNotificationRefused).status).to.equal(412);
    const other = await notice('potfan');
    expect((await failure(readEbayDeletion(body, other.headers['X-EBAY-SIGNATURE'], publicKey))).message).to.match(/does not match/);
    expect((await failure(readEbayDeletion(body, undefined, publicKey))).message).to.match(/X-EBAY-SIGNATURE/);
  });
  it('when X-EBAY-SIGNATURE decodes to JSON that is no object (null, a number, a text, a list) or names kid, signature, alg or digest with no text, then 412, eBay is not asked for a key', async () => {
    const { body } = await notice('cupfan');
    const asked: string[] = [];
    const lookup = async (kid: string) => {
      asked.push(kid);
      return publicKey(kid);
    };
    const header = (json: string) => Buffer.from(json).toString('base64');
    for (const json of [
      'null',
      '5',
      '"kid"',
      '[]',
      'true',
      '{"kid":1,"signature":"AA=="}',
      '{"kid":"k","signature":{"a":1}}',
      '{"kid":["k"],"signature":"AA=="}',
      '{"kid":"k","signature":"AA==","alg":5}',
      '{"kid":"k","signature":"AA==","digest":["SHA1"]}',
    ]) {
      const refused = await failure(readEbayDeletion(body, header(json), lookup));
      expect(refused, json).to.be.instanceOf(EbayNotificationRefused);
      expect((refused as unknown as EbayNotificationRefused).status, json).to.equal(412);
      expect(refused.message, json).to.match(/X-EBAY-SIGNATURE/);
    }
    expect(asked).to.deep.equal([]);
    // A digest no hash function has, named by the header when the key names none: 412 too.
    const { headers } = await notice('cupfan');
    const sent = JSON.parse(Buffer.from(headers['X-EBAY-SIGNATURE']!, 'base64').toString('utf8')) as Record<string, string>;
    const unknownDigest = await failure(
      readEbayDeletion(body, header(JSON.stringify({ ...sent, digest: 'NOPE-512' })), async (kid) => ({ ...(await publicKey(kid)), digest: undefined })),
    );
    expect([(unknownDigest as unknown as EbayNotificationRefused).status, unknownDigest.message]).to.deep.equal([
      412,
      'X-EBAY-SIGNATURE names an unknown digest nope512',
    ]);
  });
});
