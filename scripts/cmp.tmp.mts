import { parseBracketForm } from '../twin-runtime/form.js';
import { parseBracketForm as old } from '../../../../tmp/sec/old-form.js';
import qs from 'qs';
const cases: Record<string, string> = {
  flat2000: Array.from({ length: 1999 }, (_, i) => `k${i}=x`).join('&'),
  checkout: Array.from({ length: 100 }, (_, i) => `line_items[${i}][price_data][currency]=usd&line_items[${i}][price_data][unit_amount]=100&line_items[${i}][price_data][product_data][name]=n&line_items[${i}][quantity]=1`).join('&'),
  normal: 'amount=2000&currency=usd&customer=cus_123&metadata[order]=42&expand[]=latest_charge&payment_method_types[]=card',
};
for (const [name, text] of Object.entries(cases)) {
  for (const [label, fn] of [['new', (t: string) => parseBracketForm(t)], ['old', old], ['qsdefault', (t: string) => qs.parse(t, { parameterLimit: 5000, arrayLimit: 1000, depth: 20 })]] as const) {
    for (let w = 0; w < 20; w++) fn(text);
    const N = 200; const t0 = process.cpuUsage();
    for (let i = 0; i < N; i++) fn(text);
    const d = process.cpuUsage(t0);
    console.log(name, label, ((d.user + d.system) / N / 1000).toFixed(3), 'ms');
  }
}
