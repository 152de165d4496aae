// A twin started by the process driver also answers on the local socket named after its address,
// and the gateway's connector reaches it there first, falling back to TCP where nothing listens on
// the name (a twin started before this existed, one in a container). Names are judged as a pure
// function; connections go only to loopback and the abstract namespace.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { localSocketFirst, localSocketFor } from '../../twin-runtime/local-socket.js';

t.test('the name of a twin address local socket', async (t) => {
  t.equal(localSocketFor('http://127.0.0.1:4010', 'linux'), '\0twins-twin-127.0.0.1:4010');
  t.equal(localSocketFor('http://[::1]:4010', 'linux'), '\0twins-twin-[::1]:4010');
  t.equal(localSocketFor('http://127.0.0.1:4010', 'darwin'), undefined, 'no abstract namespace: TCP only');
  t.equal(localSocketFor('https://127.0.0.1:4010', 'linux'), undefined, 'TLS stays on TCP');
  t.equal(localSocketFor('http://localhost:4010', 'linux'), undefined, 'a name, not the loopback address a twin binds');
  t.equal(localSocketFor('http://10.1.2.3:4010', 'linux'), undefined, 'a container address');
  t.equal(localSocketFor('http://127.0.0.1', 'linux'), undefined, 'no port');
  t.equal(localSocketFor('not a url', 'linux'), undefined);
});

t.test(
  'the gateway connector uses the local socket, and TCP where nothing listens on it',
  { skip: process.platform === 'linux' ? false : 'abstract Unix sockets are Linux only' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'twins-local-socket-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const twin = await loadTwin('stripe');
    for (const localSocket of [true, false]) {
      const server = new TwinServer(twin, { dataFile: join(dir, `stripe-${localSocket}.sqlite`), localSocket });
      const url = await server.listen(0, '127.0.0.1');
      const connect = localSocketFirst(url);
      t.ok(connect, 'a loopback address has a local socket');
      const pool = new Pool(url, { connect: connect! });
      for (let i = 0; i < 3; i++) {
        const res = await pool.request({ path: '/v1/customers', method: 'GET', headers: { authorization: `Bearer ${server.apiKey}` } });
        t.equal(res.statusCode, 200);
        const body = (await res.body.json()) as { object: string };
        t.equal(body.object, 'list');
      }
      if (localSocket) t.ok(server.localSocketConnections > 0, `its requests came over the local socket (${server.localSocketConnections} connections)`);
      else t.equal(server.localSocketConnections, 0, 'no local socket: over TCP');
      await pool.close();
      await server.close();
    }
  },
);
