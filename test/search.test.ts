import { expect } from 'chai';
import { countrySearch } from '../lib/reference/country';
import { parseSearch } from '../lib/http/search';
import { likePattern } from '../lib/http/search/filter';
import type { SearchSpec } from '../lib/http/search';
import { call, newSeller, query, Seller } from './support/api';

type Country = { id: string; iso3?: string; name?: { de?: string[]; en?: string[] }; is_eu?: boolean; is_europe?: boolean };

describe('select, filter and pagination (document 1, common request types)', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  const countries = async (params: Record<string, unknown>) => {
    const res = await call(`system/country/?${query(params)}`, { token: seller.token });
    return { res, list: (res.body.country ?? []) as Country[] };
  };

  describe('select', () => {
    it('when a sub-field is selected, then only it and the id are returned', async () => {
      const { res, list } = await countries({ select: { name: { en: '' } }, filter: { iso2: 'DE' } });
      expect(res.status).to.equal(200);
      expect(list).to.deep.equal([{ id: 'DE', name: { en: ['Germany'] } }]);
    });

    it('when a container is selected, then all its sub-fields are returned', async () => {
      const { list } = await countries({ select: { name: '' }, filter: { iso2: 'AT' } });
      expect(Object.keys(list[0]!.name!)).to.deep.equal(['de', 'en', 'other']);
      expect(list[0]!.name!.de).to.deep.equal(['Österreich']);
    });

    it('when a field that the type lacks is selected, then 400 names it', async () => {
      const { res } = await countries({ select: { colour: '' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'unknown_select', field: 'select[colour]' });
    });

    it('when the list and the bracket forms are mixed (select=iso3&select[is_eu]=), then 400 names select, not select[[object Object]]', async () => {
      for (const mixed of ['select=iso3&select[is_eu]=', 'select[is_eu]=&select=iso3', 'select[]=iso3&select[][is_eu]=']) {
        const res = await call(`system/country/FR/?${mixed}`, { token: seller.token });
        expect(res.status, res.text).to.equal(400);
        expect(
          res.body.error!.map((e) => [e.error, e.field]),
          mixed,
        ).to.deep.equal([['unknown_select', 'select']]);
      }
    });

    it('when select is given on a one-record read, then it applies there too', async () => {
      const res = await call(`system/country/FR/?${query({ select: { iso3: '' } })}`, { token: seller.token });
      expect(res.body.country).to.deep.equal({ id: 'FR', iso3: 'FRA' });
    });
  });

  describe('filter', () => {
    it('when a bare value list is given, then it is one = filter with the values joined by OR', async () => {
      const { list } = await countries({ filter: { iso2: ['DE', 'AT', 'CH'] }, select: { id: '' } });
      expect(list.map((c) => c.id)).to.deep.equal(['AT', 'CH', 'DE']);
    });

    it('when two filter objects are sent, then records of either are returned (OR)', async () => {
      const { list } = await countries({ filter: [{ iso2: 'DE' }, { iso3: { operator: '=', value: ['FRA'] } }], select: { id: '' } });
      expect(list.map((c) => c.id)).to.deep.equal(['DE', 'FR']);
    });

    it('when fields are combined in one filter object, then all must hold (AND)', async () => {
      const { list } = await countries({ filter: { is_europe: '1', is_eu: '0', iso2: ['CH', 'DE', 'NO', 'US'] }, select: { id: '' } });
      expect(list.map((c) => c.id)).to.deep.equal(['CH', 'NO']);
    });

    it('when several operator filters are on one field, then they are joined by AND', async () => {
      const { list } = await countries({
        filter: {
          iso2: [
            { operator: '~', value: ['D*'] },
            { operator: '!=', value: ['DE', 'DK'] },
          ],
        },
        select: { id: '' },
      });
      expect(list.map((c) => c.id)).to.deep.equal(['DJ', 'DM', 'DO', 'DZ'].filter((id) => list.some((c) => c.id === id)));
      expect(list.map((c) => c.id)).to.not.include.members(['DE', 'DK']);
      expect(list.length).to.be.above(1);
    });

    it('when ~ has a * wildcard, then it matches any run of characters, in any language of the name', async () => {
      const { list } = await countries({ filter: { name: { operator: '~', value: ['*reich*'] } }, select: { id: '' } });
      expect(list.map((c) => c.id)).to.include.members(['AT', 'FR', 'GB']);
    });

    it('when a client sends % or _ in a ~ pattern, then they are literal characters, not SQL wildcards', async () => {
      const percent = await countries({ filter: { name: { operator: '~', value: ['Deutsch%'] } } });
      expect(percent.res.status).to.equal(200);
      expect(percent.list).to.deep.equal([]);
      const underscore = await countries({ filter: { iso2: { operator: '~', value: ['D_'] } } });
      expect(underscore.list).to.deep.equal([]);
      const star = await countries({ filter: { name: { operator: '~', value: ['Deutsch*'] } }, select: { id: '' } });
      expect(star.list.map((c) => c.id)).to.deep.equal(['DE']);
    });

    it('when !~ is used, then records matching the pattern are left out', async () => {
      const { list } = await countries({
        filter: {
          iso2: [
            { operator: '~', value: ['A*'] },
            { operator: '!~', value: ['A?', 'AT', 'AU'] },
          ],
        },
        select: { id: '' },
      });
      expect(list.map((c) => c.id)).to.not.include.members(['AT', 'AU']);
      expect(list.map((c) => c.id)).to.include('AD');
    });

    it('when an operator is not allowed for the field, then 400 names the operator field', async () => {
      const { res } = await countries({ filter: { is_eu: { operator: '~', value: ['1'] } } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_operator', field: 'filter.is_eu.operator' });
    });

    it('when a filter field is unknown, then 400 names it', async () => {
      const { res } = await countries({ filter: [{ iso2: 'DE' }, { capital: 'Berlin' }] });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'unknown_filter', field: 'filter[1].capital' });
    });

    it('when a bool filter gets a non-bool, then 400 names the value', async () => {
      const { res } = await countries({ filter: { is_eu: 'maybe' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('filter.is_eu');
    });

    it('when 200 values are sent in filter[0][iso2][value][], then all are taken', async () => {
      const all = await countries({ select: { id: '' }, pagination: { limit: 200 } });
      const ids = all.list.map((c) => c.id);
      expect(ids).to.have.length(200);
      const parts = ids.map((id, i) => `filter[0][iso2][value][${i}]=${id}`).join('&');
      const res = await call(`system/country/?${parts}&pagination[limit]=200&select[id]=`, { token: seller.token });
      expect(res.status).to.equal(200);
      expect((res.body.country as Country[]).map((c) => c.id)).to.deep.equal(ids);
    });

    it('when more than 200 values are sent, then 400', async () => {
      const parts = Array.from({ length: 201 }, (_, i) => `filter[0][iso2][value][${i}]=X${i}`).join('&');
      const res = await call(`system/country/?${parts}`, { token: seller.token });
      expect(res.status).to.equal(400);
    });

    it('when a singleton filter stands in a later filter object, then 400; in the first, it applies to all', () => {
      const spec: SearchSpec<never> = {
        ...countrySearch,
        filters: { ...countrySearch.filters, id: { column: 'iso2', type: 'string', singleton: true, operators: ['='] } },
      } as unknown as SearchSpec<never>;
      const parsed = parseSearch({ filter: [{ id: 'DE', is_eu: '1' }, { is_europe: '0' }] }, spec);
      expect(parsed.singletons).to.have.length(1);
      expect(parsed.filters).to.have.length(2);
      expect(() => parseSearch({ filter: [{ is_eu: '1' }, { id: 'DE' }] }, spec)).to.throw('singleton');
    });

    it('when a pattern is translated, then * becomes %, \\* a literal star, and % _ \\ are escaped', () => {
      expect(likePattern('12*')).to.equal('12%');
      expect(likePattern('12\\*')).to.equal('12*');
      expect(likePattern('50%_off\\x')).to.equal('50\\%\\_off\\\\x');
    });
  });

  describe('pagination', () => {
    it('when no limit is given, then 20 records come; page 2 continues where page 1 ended; page 0 is page 1', async () => {
      const one = await countries({ select: { id: '' } });
      const zero = await countries({ select: { id: '' }, pagination: { page: 0 } });
      const two = await countries({ select: { id: '' }, pagination: { page: 2 } });
      expect(one.list).to.have.length(20);
      expect(zero.list).to.deep.equal(one.list);
      expect(two.list[0]!.id > one.list[19]!.id).to.equal(true);
    });

    it('when min_id is given, then the page starts at that id and next_min_id leads through all records', async () => {
      const seen: string[] = [];
      let minId: string | undefined = 'A';
      let first = true;
      for (let pages = 0; pages < 10 && (first || minId); pages++) {
        first = false;
        const { res, list } = await countries({ select: { id: '' }, pagination: { limit: 100, ...(minId ? { min_id: minId === 'A' ? 'AA' : minId } : {}) } });
        seen.push(...list.map((c) => c.id));
        minId = res.body.next_min_id as string | undefined;
      }
      expect(seen).to.have.length(250);
      expect(new Set(seen).size).to.equal(250);
      const { list } = await countries({ select: { id: '' }, pagination: { limit: 2, min_id: 'DE' } });
      expect(list.map((c) => c.id)).to.deep.equal(['DE', 'DJ']);
    });

    it('when the last page is reached by min_id, then next_min_id is absent', async () => {
      const { res } = await countries({ pagination: { limit: 5, min_id: 'ZA' } });
      expect(res.body).not.to.have.property('next_min_id');
    });

    it('when limit is above 200 or not a number, then 400 names pagination[limit]', async () => {
      for (const limit of ['201', 'ten', '-1']) {
        const { res } = await countries({ pagination: { limit } });
        expect(res.status, limit).to.equal(400);
        expect(res.body.error![0]!.field).to.equal('pagination[limit]');
      }
    });

    it('when min_id is not an id of the resource, then 400', async () => {
      const { res } = await countries({ pagination: { min_id: '1234' } });
      expect(res.status).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('pagination[min_id]');
    });
  });
});
