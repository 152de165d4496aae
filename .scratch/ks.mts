import { RecordStore } from '../twin-runtime/record-store.js';
import { rmSync } from 'node:fs';
rmSync('/tmp/ks.sqlite', { force: true });
const s = new RecordStore('/tmp/ks.sqlite');
s.transaction(() => { for (let i = 0; i < 50000; i++) s.put('customer', 'cus_' + i, { id: 'cus_' + i, created: 1000 + Math.floor(i / 7), email: i % 2 ? 'a@x' : 'b@x' }); });
s.transaction(() => { for (let i = 0; i < 50000; i++) s.put('repos.releases', 'o/r/' + i, { id: i }); });
for (const sql of [
 "EXPLAIN QUERY PLAN SELECT seq FROM records WHERE resource='customer' AND json_extract(body,'$.deleted') IS NULL AND (ifnull(json_extract(body, '$.created'), 0), seq) < (5000, 9999) ORDER BY ifnull(json_extract(body, '$.created'), 0) DESC, seq DESC LIMIT 4",
 "EXPLAIN QUERY PLAN SELECT seq FROM records WHERE resource='repos.releases' AND rtrim(external_id, replace(external_id, '/', '')) = 'o/r/' AND seq > 5 ORDER BY seq ASC LIMIT 4",
]) console.log(s.db.prepare(sql).all());
let t = performance.now();
for (let k = 0; k < 100; k++) { const c = s.cursorOf('customer', 'cus_49990')!; s.page({ resource: 'customer', equals: { deleted: null }, order: 'created', descending: true, after: c, limit: 3 }); }
console.log('created page', (performance.now() - t) / 100);
t = performance.now();
for (let k = 0; k < 100; k++) s.page({ resource: 'repos.releases', scope: 'o/r/', order: 'seq', descending: false, limit: 30 });
console.log('scope page', (performance.now() - t) / 100, s.page({ resource: 'repos.releases', scope: 'o/r/', order: 'seq', descending: false, limit: 2 }).items.map(i=>i.external_id));
t = performance.now(); console.log(s.countWhere({resource:'repos.releases', scope:'o/r/'}), performance.now()-t);
