import { RecordStore } from '../twin-runtime/record-store.js';
const s = new RecordStore('/tmp/ks.sqlite');
const C = "ifnull(json_extract(body, '$.created'), 0)";
for (const cond of [`(${C}, seq) < (?, ?)`, `${C} <= ? AND (${C} < ? OR seq < ?)`]) {
  const sql = `SELECT seq FROM records WHERE resource='customer' AND json_extract(body,'$.deleted') IS NULL AND ${cond} ORDER BY ${C} DESC, seq DESC LIMIT 4`;
  const args0 = cond.startsWith('(') ? [1014, 100] : [1014, 1014, 100]; console.log(s.db.prepare('EXPLAIN QUERY PLAN ' + sql).all(...args0).map((r: any) => r.detail));
  const st = s.db.prepare(sql);
  const args = cond.startsWith('(') ? [1014, 100] : [1014, 1014, 100];
  let t = performance.now(); for (let k = 0; k < 20; k++) st.all(...args); console.log((performance.now() - t) / 20);
}
