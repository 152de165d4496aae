import qs from 'qs';
const text = Array.from({ length: 1999 }, (_, i) => `k${i}=x`).join('&');
const t0 = Date.now();
for (let i = 0; i < 400; i++) qs.parse(text, { parameterLimit: 5000 });
console.log(Date.now() - t0);
