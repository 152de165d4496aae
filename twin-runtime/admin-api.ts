// Internal admin API of a running twin: health, credential, advance, records, reset. The control
// plane calls it directly (never through the gateway); the server checks the admin secret first.

import type { TwinResponse } from './contract.js';
import { DELIVERY_RESOURCE } from './deliveries.js';
import { InputRefusal, parseJson, prototypesIntact } from './safe-input.js';
import { KEPT_KEY_META, type TwinServer } from './server.js';

function detail(status: number, sentence: string): TwinResponse {
  return { status, body: { detail: sentence } };
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  return parseJson(raw.toString('utf8'));
}

export async function handleAdmin(twin: TwinServer, method: string, path: string, raw: Buffer): Promise<TwinResponse> {
  const parts = path.slice('/_twin/'.length).split('/').map(decodeURIComponent);
  const [head, resource, externalId, extra] = parts;
  let body: any;
  try {
    body = parseBody(raw);
  } catch (e) {
    return detail(400, e instanceof InputRefusal ? e.message : 'The admin request body is not valid JSON.');
  }

  if (head === 'health' && method === 'GET' && parts.length === 1) {
    return {
      status: 200,
      body: {
        status: 'ok',
        twin: twin.twin.slug,
        version: twin.twin.version,
        storage_version: Number(twin.store.getMeta('storage_version')),
        clock: twin.clock.now().toISOString(),
        advance: twin.advances.running ?? null,
        // Twin-only: no request has reached Object.prototype (or Array/Function/String's) in this process.
        prototype_intact: prototypesIntact(),
      },
    };
  }
  if (head === 'credential' && method === 'GET' && parts.length === 1) {
    return { status: 200, body: { api_key: twin.apiKey } };
  }
  if (head === 'advance' && method === 'POST' && parts.length === 1) return twin.advances.request(body);
  if (head === 'advance' && method === 'GET' && parts.length === 2) {
    return twin.advances.answer(parts[1]!) ?? detail(404, `No advance job '${parts[1]}'.`);
  }
  // Writes wait for a running advance (reads may watch it).
  const busy = method === 'GET' ? undefined : twin.advances.busyAdmin();
  if (busy) return busy;
  if (head === 'reset' && method === 'POST' && parts.length === 1) {
    const start = twin.clockStart;
    // replaceWith ATTACHes the seed file, which SQLite refuses inside a transaction; it runs its
    // own transaction for the copy, so it goes first and alone.
    if (twin.options.seedFile) twin.store.replaceWith(twin.options.seedFile);
    twin.store.transaction(() => {
      if (!twin.options.seedFile) twin.store.clear();
      twin.store.setMeta('clock_start', String(start.getTime()));
      if (twin.store.getMeta('storage_version') === undefined) {
        twin.store.setMeta('storage_version', String(twin.twin.storageVersion));
      }
      if (twin.keepsKey) twin.store.setMeta(KEPT_KEY_META, twin.apiKey);
    });
    twin.clock.resetTo(new Date(Number(twin.store.getMeta('clock') ?? start.getTime())));
    twin.twin.initialize?.(twin.ctx);
    return { status: 200, body: { clock: twin.clock.now().toISOString() } };
  }
  if (head === 'records' && resource !== undefined && extra === undefined) {
    const known = twin.twin.resources.includes(resource) || resource === DELIVERY_RESOURCE;
    if (!known) return detail(404, `The ${twin.twin.slug} twin keeps no records of kind '${resource}'.`);
    if (externalId === undefined) {
      if (method !== 'GET') return detail(405, 'Method Not Allowed');
      return { status: 200, body: twin.store.listRecords(resource) };
    }
    if (method === 'GET') {
      const rec = twin.store.get(resource, externalId);
      if (!rec) return detail(404, `No ${resource} record '${externalId}'.`);
      return { status: 200, body: { external_id: externalId, resource, body: rec } };
    }
    if (resource === DELIVERY_RESOURCE && method !== 'GET') {
      // A rewritten delivery would be sent as is: an arbitrary POST with chosen headers and body.
      return detail(403, 'Delivery records are read-only: they record what the twin sent and are written only by the twin itself.');
    }
    if (method === 'PUT') {
      const fields = body?.fields;
      if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
        return detail(400, '`fields` must be an object.');
      }
      twin.store.put(resource, externalId, fields);
      return { status: 200, body: { external_id: externalId, resource, body: fields } };
    }
    if (method === 'DELETE') {
      if (!twin.store.delete(resource, externalId)) return detail(404, `No ${resource} record '${externalId}'.`);
      return { status: 204 };
    }
    return detail(405, 'Method Not Allowed');
  }
  return detail(404, 'Not Found');
}
