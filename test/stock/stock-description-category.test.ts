import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';
import { createItem } from './helpers';

describe('stock descriptions', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a description is created, read, updated and deleted, then each step answers as document 1 says', async () => {
    const id = await createItem(seller, { name: 'D', sku: 'D-1' });
    const description = {
      name: 'main',
      icon_id: 'flag_de',
      language_iso2: 'DE',
      long: '<p>long</p>',
      short: 'short',
      alternative_title: 'Alt',
      meta_keywords: 'k',
      meta_description: 'm',
    };
    const created = await call(`stock/SKU_D-1/description/`, { token: seller.token, body: { description } });
    expect(created.status, created.text).to.equal(201);
    const descriptionId = created.body.description_id as number;
    const one = await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token });
    expect(one.body.description).to.deep.equal({ ...description, id: descriptionId, language_iso2: 'de' });
    const updated = await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token, body: { description: { short: 'shorter', id: 5 } } });
    expect(updated.status).to.equal(200);
    expect(updated.body.warning![0]!.field).to.equal('description.id');
    const all = await call(`stock/${id}/description/`, { token: seller.token });
    expect(all.body.description).to.deep.equal([{ ...description, id: descriptionId, language_iso2: 'de', short: 'shorter' }]);
    expect((await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect((await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token })).status).to.equal(404);
  });

  it('when a description has only a name, then JSON and XML read every field of document 2 (empty ones as ""), and the read posts back unchanged in either format', async () => {
    const id = await createItem(seller, { name: 'D' });
    const created = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: 'only a name' } } });
    expect(created.status, created.text).to.equal(201);
    const descriptionId = created.body.description_id as number;
    const whole = {
      id: descriptionId,
      name: 'only a name',
      icon_id: '',
      language_iso2: '',
      long: '',
      short: '',
      alternative_title: '',
      meta_keywords: '',
      meta_description: '',
    };
    const one = await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token });
    expect(one.body.description).to.deep.equal(whole);
    expect((await call(`stock/${id}/description/`, { token: seller.token })).body.description).to.deep.equal([whole]);
    const xml = await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    const element = /<description>.*<\/description>/s.exec(xml.text)?.[0];
    expect(element).to.equal(
      `<description><id>${descriptionId}</id><name>only a name</name><icon_id/><language_iso2/><long/><short/><alternative_title/><meta_keywords/><meta_description/></description>`,
    );

    const postedJson = await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token, body: { description: one.body.description } });
    expect(postedJson.status, postedJson.text).to.equal(200);
    const postedXml = await call(`stock/${id}/description/${descriptionId}/`, {
      token: seller.token,
      headers: { 'Content-Type': 'application/xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?><request>${element!.replace(/<id>\d+<\/id>/, '')}</request>`,
    });
    expect(postedXml.status, postedXml.text).to.equal(200);
    expect((await call(`stock/${id}/description/${descriptionId}/`, { token: seller.token })).body.description).to.deep.equal(whole);
  });

  it('when icon_id or language is invalid, or the description belongs to another item or account, then 400 or 404', async () => {
    const id = await createItem(seller, { name: 'D' });
    const badIcon = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { icon_id: 'no_such_icon' } } });
    expect(badIcon.status).to.equal(400);
    expect(badIcon.body.error![0]!.field).to.equal('description.icon_id');
    const badLanguage = await call(`stock/${id}/description/`, { token: seller.token, body: { description: { language_iso2: 'deu', name: 'x'.repeat(256) } } });
    expect(badLanguage.body.error!.map((e) => e.field)).to.deep.equal(['description.name', 'description.language_iso2']);
    const descriptionId = (await call(`stock/${id}/description/`, { token: seller.token, body: { description: { name: 'ok' } } })).body
      .description_id as number;
    const otherItem = await createItem(seller, { name: 'E' });
    expect((await call(`stock/${otherItem}/description/${descriptionId}/`, { token: seller.token })).status).to.equal(404);
    const other = await newSeller();
    expect((await call(`stock/${id}/description/${descriptionId}/`, { token: other.token })).status).to.equal(404);
    expect((await call(`stock/${id}/description/${descriptionId}/`, { token: other.token, method: 'DELETE' })).status).to.equal(404);
  });
});

describe('own categories and folders', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when own categories are created, searched and deleted, then platform is required and each account sees its own', async () => {
    const res = await call('stock/category/', {
      token: seller.token,
      body: {
        category: [
          { platform: 'shop_g', id: '1', name: 'Kitchen' },
          { platform: 'shop_g', id: 2, name: 'Cups', parent_id: 1 },
        ],
      },
    });
    // Document 1: a POST that creates a record answers 201.
    expect(res.status, res.text).to.equal(201);
    const all = await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: seller.token });
    expect(all.body.category).to.deep.equal([
      { platform: 'shop_g', id: '1', name: 'Kitchen', parent_id: '0', portal_account_id: seller.portalAccountId },
      { platform: 'shop_g', id: '2', name: 'Cups', parent_id: '1', portal_account_id: seller.portalAccountId },
    ]);
    const children = await call(`stock/category/?${query({ filter: { platform: 'shop_g', parent_id: '1' } })}`, { token: seller.token });
    expect((children.body.category as { id: string }[]).map((c) => c.id)).to.deep.equal(['2']);
    expect((await call('stock/category/', { token: seller.token })).status).to.equal(400);
    expect((await call(`stock/category/?${query({ filter: { platform: 'auction_a' } })}`, { token: seller.token })).status).to.equal(400);
    const other = await newSeller();
    expect((await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: other.token })).body.category).to.deep.equal([]);
    await call(`stock/category/?${query({ filter: { platform: 'shop_g', id: '2' } })}`, { token: seller.token, method: 'DELETE' });
    const left = await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: seller.token });
    expect((left.body.category as { id: string }[]).map((c) => c.id)).to.deep.equal(['1']);
  });

  it('when a category names a foreign portal account or a non-own platform, then 400 names the field', async () => {
    const other = await newSeller();
    const foreign = await call('stock/category/', {
      token: seller.token,
      body: { category: { platform: 'shop_g', id: '1', portal_account_id: other.portalAccountId } },
    });
    expect(foreign.status).to.equal(400);
    expect(foreign.body.error![0]!.field).to.equal('category[0].portal_account_id');
    const platform = await call('stock/category/', { token: seller.token, body: { category: { platform: 'market_d', id: '1' } } });
    expect(platform.status).to.equal(400);
    // One category sent as an object is a list of one: its fields are named with their index, as above.
    expect(platform.body.error![0]!.field).to.equal('category[0].platform');
  });

  it('when POST stock/category/ creates a category, then 201 (document 1: a POST that creates a record); when it only renames or moves existing ones, then 200', async () => {
    const post = (category: unknown) => call('stock/category/', { token: seller.token, body: { category } });
    const made = await post({ platform: 'shop_g', id: 'k1', name: 'Kitchen' });
    expect([made.status, made.body]).to.deep.equal([201, { ack: 'success' }]);
    const renamed = await post({ platform: 'shop_g', id: 'k1', name: 'Kitchenware' });
    expect([renamed.status, renamed.body]).to.deep.equal([200, { ack: 'success' }]);
    const oneNew = await post([
      { platform: 'shop_g', id: 'k1', parent_id: 'k2' },
      { platform: 'shop_g', id: 'k2', name: 'Home' },
    ]);
    expect(oneNew.status, oneNew.text).to.equal(201);
    const all = await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: seller.token });
    expect((all.body.category as { id: string; name: string; parent_id: string }[]).map((c) => [c.id, c.name, c.parent_id])).to.deep.equal([
      ['k1', 'Kitchenware', 'k2'],
      ['k2', 'Home', '0'],
    ]);
  });

  it('when the second of two categories names a foreign portal account, then 400 names category[1] and neither is written', async () => {
    const other = await newSeller();
    const res = await call('stock/category/', {
      token: seller.token,
      body: {
        category: [
          { platform: 'shop_g', id: '1', name: 'Kitchen' },
          { platform: 'shop_g', id: '2', name: 'Cups', portal_account_id: other.portalAccountId },
        ],
      },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('category[1].portal_account_id');
    const all = await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: seller.token });
    expect(all.body.category).to.deep.equal([]);
    const theirs = await call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: other.token });
    expect(theirs.body.category).to.deep.equal([]);
  });

  it('when a category would be under itself, directly or through others, then 400 names its parent_id and nothing changes', async () => {
    const categories = () => call(`stock/category/?${query({ filter: { platform: 'shop_g' } })}`, { token: seller.token });
    const tree = [
      { platform: 'shop_g', id: '1', name: 'Kitchen' },
      { platform: 'shop_g', id: '2', name: 'Cups', parent_id: '1' },
      { platform: 'shop_g', id: '3', name: 'Tea cups', parent_id: '2' },
    ];
    expect((await call('stock/category/', { token: seller.token, body: { category: tree } })).status).to.equal(201);
    const before = (await categories()).body.category;

    for (const [category, field] of [
      [{ platform: 'shop_g', id: '4', name: 'Self', parent_id: '4' }, 'category[0].parent_id'],
      [{ platform: 'shop_g', id: '1', parent_id: '3' }, 'category[0].parent_id'],
      [
        [
          { platform: 'shop_g', id: '5', name: 'A', parent_id: '6' },
          { platform: 'shop_g', id: '6', name: 'B', parent_id: '5' },
        ],
        'category[0].parent_id',
      ],
      [
        [
          { platform: 'shop_g', id: '7', name: 'New' },
          { platform: 'shop_g', id: '2', parent_id: '3' },
        ],
        'category[1].parent_id',
      ],
    ] as const) {
      const res = await call('stock/category/', { token: seller.token, body: { category } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_field', field });
      expect((await categories()).body.category, JSON.stringify(category)).to.deep.equal(before);
    }

    // A parent written after its child stays allowed, and so does moving a category elsewhere in the tree.
    const later = await call('stock/category/', {
      token: seller.token,
      body: {
        category: [
          { platform: 'shop_g', id: '9', name: 'Child', parent_id: '8' },
          { platform: 'shop_g', id: '8', name: 'Parent', parent_id: '1' },
          { platform: 'shop_g', id: '3', parent_id: '1' },
        ],
      },
    });
    expect(later.status, later.text).to.equal(201);
    const parents = ((await categories()).body.category as { id: string; parent_id: string }[]).map((c) => `${c.id}<${c.parent_id}`);
    expect(parents).to.deep.equal(['1<0', '2<1', '3<1', '9<8', '8<1']);
  });

  it('when items live in folders, then stock/folder/ lists them with their parents, each starting with /', async () => {
    await createItem(seller, { name: 'a', folder: 'kitchen/cups' });
    await createItem(seller, { name: 'b', folder: '/garden' });
    const res = await call('stock/folder/', { token: seller.token });
    expect(res.body.folder).to.deep.equal(['/', '/garden', '/kitchen', '/kitchen/cups']);
  });
});

describe('shop parameters', () => {
  it('when tax classes are created, updated and searched, then each portal account has its own and type is required', async () => {
    const seller = await newSeller();
    const created = await call('stock/shop_parameter/', {
      token: seller.token,
      body: { shop_parameter: { type: 'tax_class', name: 'standard', additional: '19' } },
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.shop_parameter_id as number;
    const updated = await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'tax_class', id, name: 'regular' } } });
    expect(updated.status).to.equal(200);
    await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'manufacturer', name: 'Porzella' } } });
    const found = await call(`stock/shop_parameter/?${query({ filter: { type: 'tax_class' } })}`, { token: seller.token });
    expect(found.body.shop_parameter).to.deep.equal([{ type: 'tax_class', id, portal_account_id: seller.portalAccountId, name: 'regular', additional: '19' }]);
    expect((await call('stock/shop_parameter/', { token: seller.token })).status).to.equal(400);
    expect((await call('stock/shop_parameter/', { token: seller.token, body: { shop_parameter: { type: 'colour' } } })).status).to.equal(400);
    const other = await newSeller();
    const foreign = await call('stock/shop_parameter/', { token: other.token, body: { shop_parameter: { type: 'tax_class', id, name: 'stolen' } } });
    expect(foreign.status).to.equal(404);
    const foreignAccount = await call('stock/shop_parameter/', {
      token: other.token,
      body: { shop_parameter: { type: 'tax_class', portal_account_id: seller.portalAccountId } },
    });
    expect(foreignAccount.status).to.equal(400);
  });
});
