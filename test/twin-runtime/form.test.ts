import t from 'tap';
import { parseBracketForm } from '../../twin-runtime/form.js';
import { INPUT_LIMITS, InputRefusal } from '../../twin-runtime/safe-input.js';

t.test('bracket notation builds nested objects and arrays', async (t) => {
  t.same(parseBracketForm('a=1&b[c]=2&b[d][e]=3'), { a: '1', b: { c: '2', d: { e: '3' } } });
  t.same(parseBracketForm('expand[]=x&expand[]=y'), { expand: ['x', 'y'] });
  t.same(parseBracketForm('items[0][price]=p1&items[1][price]=p2&items[1][quantity]=2'), {
    items: [{ price: 'p1' }, { price: 'p2', quantity: '2' }],
  });
  t.same(parseBracketForm('metadata[k]=v%20w'), { metadata: { k: 'v w' } });
  t.same(parseBracketForm(''), {});
});

t.test('names that walk through a prototype are dropped, in every spelling', async (t) => {
  const payloads = [
    '__proto__[polluted]=yes',
    'constructor[prototype][polluted]=yes',
    'a[__proto__][polluted]=yes',
    'a[constructor][prototype][polluted]=yes',
    'a[prototype][polluted]=yes',
    '%5F_proto__[polluted]=yes',
    '__proto__%5Bpolluted%5D=yes',
    '%5F%5Fproto%5F%5F[polluted]=yes',
    'a[0][__proto__][polluted]=yes',
    '[__proto__][polluted]=yes',
    'toString=yes',
    'metadata[hasOwnProperty]=yes',
  ];
  for (const p of payloads) {
    const out = parseBracketForm(`${p}&keep=1`);
    t.same(Object.keys(out), ['keep'], p);
    t.equal(({} as Record<string, unknown>).polluted, undefined, `${p} leaves Object.prototype alone`);
  }
  // A literal name that only contains the word is an ordinary parameter.
  t.same(parseBracketForm('__pro__proto__to__[x]=1'), { __pro__proto__to__: { x: '1' } });
  t.same(parseBracketForm('a[__proto__x]=1'), { a: { __proto__x: '1' } });
  t.same(Object.keys(parseBracketForm('__proto__.polluted=yes')), ['__proto__.polluted'], 'dots do not nest');
  t.equal(Object.getPrototypeOf(parseBracketForm('a[b]=1').a), Object.prototype, 'plain objects, no prototype swapped in');
});

t.test('limits are refused with an InputRefusal naming the parameter, not turned into objects', async (t) => {
  const refusal = (text: string, part: 'query' | 'body' = 'body') => {
    try {
      parseBracketForm(text, part);
    } catch (e) {
      if (e instanceof InputRefusal) return e;
      throw e;
    }
    return undefined;
  };
  const index = refusal(`items[${INPUT_LIMITS.maxArrayIndex + 1}][price]=p`);
  t.match(index, { reason: 'index_too_large', part: 'body', param: `items[${INPUT_LIMITS.maxArrayIndex + 1}]`, limit: INPUT_LIMITS.maxArrayIndex });
  t.match(refusal('a[1000000000]=x'), { reason: 'index_too_large', param: 'a[1000000000]' });
  t.match(refusal('a[99999999999999999999999]=x'), { reason: 'index_too_large' });
  t.same(parseBracketForm(`items[${INPUT_LIMITS.maxArrayIndex}]=x`), { items: ['x'] }, 'the last allowed index is an array');

  const many = Array.from({ length: INPUT_LIMITS.maxParameters + 1 }, (_, i) => `p${i}=x`).join('&');
  t.match(refusal(many, 'query'), { reason: 'too_many_parameters', part: 'query', param: undefined });
  t.equal(Object.keys(parseBracketForm(many.slice(0, many.lastIndexOf('&')))).length, INPUT_LIMITS.maxParameters);

  const deep = 'a' + '[b]'.repeat(INPUT_LIMITS.maxKeyDepth + 1) + '=x';
  t.match(refusal(deep), { reason: 'nesting_too_deep', param: /^a\[b\]\[b\]/ });
  t.ok(parseBracketForm('a' + '[b]'.repeat(INPUT_LIMITS.maxKeyDepth) + '=x').a, 'the deepest allowed name decodes');

  const long = refusal('k'.repeat(INPUT_LIMITS.maxKeyLength + 1) + '=x');
  t.match(long, { reason: 'key_too_long' });
  t.ok(long!.param!.length < 200, 'the refusal quotes a readable stretch of the name');
  t.match(refusal('%6B'.repeat(INPUT_LIMITS.maxKeyLength + 1) + '=x'), { reason: 'key_too_long' }, 'length counts the decoded name');
});
