import t from 'tap';
import { parseBracketForm } from '../../twin-runtime/form.js';

t.test('bracket notation builds nested objects and arrays', async (t) => {
  t.same(parseBracketForm('a=1&b[c]=2&b[d][e]=3'), { a: '1', b: { c: '2', d: { e: '3' } } });
  t.same(parseBracketForm('expand[]=x&expand[]=y'), { expand: ['x', 'y'] });
  t.same(parseBracketForm('items[0][price]=p1&items[1][price]=p2&items[1][quantity]=2'), {
    items: [{ price: 'p1' }, { price: 'p2', quantity: '2' }],
  });
  t.same(parseBracketForm('metadata[k]=v%20w'), { metadata: { k: 'v w' } });
  t.same(parseBracketForm(''), {});
});
