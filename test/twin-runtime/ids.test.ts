// Base62 strings carry full entropy: rejection sampling (a byte of 248 or more is skipped, so each
// character is uniform), never a byte used twice (a 99-character Stripe publishable key once repeated
// a 32-character block three times), deterministic streams for derived strings and ids.

import t from 'tap';
import { base62, hmacBase62, hmacStream, IdSource, randomBase62 } from '../../twin-runtime/ids.js';
import { RecordStore } from '../../twin-runtime/record-store.js';
import { publishableKeyFor } from '../../twins/stripe/wire/publishable.js';

const ALPHABET = /^[0-9A-Za-z]+$/;

t.test('rejection sampling: bytes of 248 and above are skipped, the rest map uniformly', async (t) => {
  const fed: Buffer[] = [Buffer.from([255, 248, 0, 61, 62, 247]), Buffer.from([250, 123, 1])];
  const stream = () => fed.shift() ?? Buffer.alloc(0);
  // 0 → '0', 61 → 'z', 62 → '0', 247 → 247 % 62 = 61 → 'z', 123 → 123 % 62 = 61 → 'z', 1 → '1'
  t.equal(base62(stream, 6), '0z0zz1');
  t.equal(
    base62(() => Buffer.from([7]), 3),
    '777',
    'asks for more until it has enough',
  );
});

t.test('a publishable key has no repeated block and uses every byte once', async (t) => {
  const key = publishableKeyFor(`sk_test_${randomBase62(99)}`);
  const body = key.slice('pk_test_'.length);
  t.equal(body.length, 99);
  t.match(body, ALPHABET);
  t.not(body.slice(0, 32), body.slice(32, 64), 'the second 32 characters are not the first again');
  t.not(body.slice(0, 32), body.slice(64, 96));
  t.equal(publishableKeyFor('sk_test_same'), publishableKeyFor('sk_test_same'), 'derived: the same secret gives the same key');
  t.not(publishableKeyFor('sk_test_a'), publishableKeyFor('sk_test_b'));
});

t.test('characters are uniform over the alphabet (chi-square over 62,000 draws)', async (t) => {
  const counts = new Map<string, number>();
  const text = randomBase62(62_000);
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  t.equal(counts.size, 62, 'every character appears');
  const expected = 1000;
  const chi = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
  // 61 degrees of freedom: p = 0.0001 at about 112. The old modulo mapping gave '0'…'7' 5 chances in 256
  // against 4 for the rest: chi-square ≈ 410 at this size.
  t.ok(chi < 112, `chi-square ${chi.toFixed(1)}`);
});

t.test('derived streams: any length, the same for the same key and label', async (t) => {
  const a = hmacStream('k', 'x');
  const first = Buffer.concat([a(10), a(50), a(3)]);
  t.same(first, hmacStream('k', 'x')(63), 'reading in pieces gives the same bytes');
  t.notSame(hmacStream('k', 'y')(32), hmacStream('k', 'x')(32));
  t.equal(base62(hmacStream('k', 'x'), 200).length, 200);
});

t.test('hmacBase62 gives what base62 over the HMAC stream gives', async (t) => {
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    for (const length of [14, 24, 58, 99]) {
      if (hmacBase62(Buffer.from('seed'), `id:${i}`, length) !== base62(hmacStream('seed', `id:${i}`), length)) t.fail(`id:${i} at ${length} differs`);
      compared++;
    }
  }
  t.equal(compared, 8000);
});

t.test('ids are deterministic per seed and distinct', async (t) => {
  const store = new RecordStore(':memory:');
  t.teardown(() => store.close());
  const ids = new IdSource(store, 'seed');
  const made = Array.from({ length: 200 }, () => ids.next('cus_', 14));
  t.equal(new Set(made).size, 200);
  for (const id of made) t.match(id, /^cus_[0-9A-Za-z]{14}$/);
  t.equal(store.getMeta('counter:ids'), '200', 'the counter is kept in the file, as text');
  const fresh = () => new RecordStore(':memory:');
  const again = new IdSource(fresh(), 'seed');
  t.equal(again.next('cus_', 14), made[0], 'the same seed gives the same first id');
  t.not(new IdSource(fresh(), 'other').next('cus_', 14), made[0]);
  // A counter written as text by an older file continues from its value.
  const older = fresh();
  older.setMeta('counter:ids', '199');
  t.equal(new IdSource(older, 'seed').next('cus_', 14), made[199], 'an existing counter continues');
  t.match(ids.token(64), /^[0-9A-Za-z]{64}$/);
});
