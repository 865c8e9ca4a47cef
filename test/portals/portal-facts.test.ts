import { expect } from 'chai';
import { portalUploadType } from '../../lib/portal-offer/portal-upload.type';
import {
  adapterFor,
  ciaPortals,
  globalCategoryPlatforms,
  listerGroups,
  objectGroups,
  ownCategoryPlatforms,
  portalAdapters,
  portalIds,
  uploadPortals,
} from '../../lib/portals/portal.registry';
import type { PortalAdapter } from '../../lib/portals/portal.type';

const where = (fact: (adapter: PortalAdapter) => boolean) => portalAdapters.filter(fact).map((a) => a.portal);

describe("portals: each portal's facts in its adapter", () => {
  it('when the registries are read, then each is exactly the adapters declaring that fact, in registry order', () => {
    expect(portalIds).to.deep.equal(portalAdapters.map((a) => a.portal));
    expect(ciaPortals).to.deep.equal(where((a) => a.cia !== null));
    expect(uploadPortals.map((a) => a.portal)).to.deep.equal(where((a) => a.uploadActions.length > 0));
    expect(globalCategoryPlatforms).to.deep.equal(where((a) => a.categories === 'global'));
    expect(ownCategoryPlatforms).to.deep.equal(where((a) => a.categories === 'own'));
    expect(listerGroups).to.deep.equal(where((a) => a.fieldGroup === 'listers'));
    expect(objectGroups).to.deep.equal(where((a) => a.fieldGroup !== 'listers'));
    for (const portal of portalIds) expect(adapterFor(portal).portal).to.equal(portal);
  });

  it("when the adapters' facts are read, then they say what documents 1 and 2 say of each portal", () => {
    expect(portalIds).to.deep.equal([
      'auction_a',
      'auction_b',
      'market_c',
      'market_d',
      'market_e',
      'market_f',
      'shop_g',
      'shop_h',
      'market_i',
      'webshop',
      'shop',
    ]);
    expect(ciaPortals).to.deep.equal(['auction_a', 'auction_b', 'market_c', 'market_d', 'market_e', 'market_f', 'shop_g', 'webshop']);
    expect(where((a) => a.cia?.namedAccounts === true)).to.deep.equal(['market_d']);
    expect(Object.fromEntries(uploadPortals.map((a) => [a.portal, a.uploadActions]))).to.deep.equal({
      auction_a: ['list', 'revise'],
      market_d: ['list'],
      market_e: ['list', 'delete'],
      market_f: ['list'],
      shop_g: ['list'],
    });
    expect(globalCategoryPlatforms).to.deep.equal(['auction_a', 'auction_b', 'market_c', 'market_e']);
    expect(ownCategoryPlatforms).to.deep.equal(['shop_g', 'market_i', 'shop']);
    expect(listerGroups).to.deep.equal(['auction_a', 'auction_b', 'market_c', 'shop']);
    expect(adapterFor('auction_a').maxQuantityBatch).to.equal(25);
  });

  it("when Stock_portal_upload_type is built, then it has one entry per upload portal with that adapter's part type", () => {
    const keys = Object.keys(portalUploadType.describe().keys ?? {});
    expect(keys).to.deep.equal(uploadPortals.map((a) => a.portal));
    expect(portalUploadType.validate({ market_d: [{ action: 'revise' }] }).error?.details[0]?.path).to.deep.equal(['market_d', 0, 'action']);
    expect(portalUploadType.validate({ auction_a: [{ action: 'revise', revise_values: ['price'] }] }).error).to.equal(undefined);
    expect(portalUploadType.validate({ shop_h: [{ action: 'list' }] }).error?.details[0]?.path).to.deep.equal(['shop_h']);
  });
});
