import { loadTwin } from '../twin-runtime/registry.js';
for (const s of ['stripe','github','slack']) { const d = await loadTwin(s); console.log(s, d.routes.length); if (s==='github') console.log(d.routes.map(r=>r.method+' '+r.path).filter(p=>!/__[1-9]/.test(p)).join('\n')); }
