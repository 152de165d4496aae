// Internal admin API of a running twin: health, credential, advance, records, reset, snapshot. The control
// plane calls it directly (never through the gateway); the server checks the admin secret first.
// This file only translates HTTP: every operation is a method of the twin's host (host.ts).

import type { TwinResponse } from './contract.js';
import { HostError, type TwinHost } from './host.js';
import { InputRefusal, parseJson } from './safe-input.js';
import { DELIVERY_RESOURCE } from './deliveries.js';
import { MAX_FAULTS, parseFault, type Fault } from './faults.js';

/** How long `POST /_twin/deliveries/settle` waits for first attempts at most. */
const SETTLE_MS = 10_000;

function detail(status: number, sentence: string): TwinResponse {
  return { status, body: { detail: sentence } };
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  return parseJson(raw.toString('utf8'));
}

export async function handleAdmin(host: TwinHost, method: string, path: string, raw: Buffer): Promise<TwinResponse> {
  try {
    return await route(host, method, path, raw);
  } catch (e) {
    if (e instanceof HostError) return detail(e.status, e.message);
    throw e;
  }
}

async function route(host: TwinHost, method: string, path: string, raw: Buffer): Promise<TwinResponse> {
  const parts = path.slice('/_twin/'.length).split('/').map(decodeURIComponent);
  const [head, resource, externalId, extra] = parts;
  let body: unknown;
  try {
    body = parseBody(raw);
  } catch (e) {
    return detail(400, e instanceof InputRefusal ? e.message : 'The admin request body is not valid JSON.');
  }

  if (head === 'health' && method === 'GET' && parts.length === 1) {
    return { status: 200, body: host.health() };
  }
  if (head === 'credential' && method === 'GET' && parts.length === 1) {
    return { status: 200, body: host.credential() };
  }
  if (head === 'advance' && method === 'POST' && parts.length === 1) return host.advances.request(body as { to?: unknown; wait_ms?: unknown });
  if (head === 'advance' && method === 'GET' && parts.length === 2) {
    return host.advances.answer(parts[1]!) ?? detail(404, `No advance job '${parts[1]}'.`);
  }
  // Writes wait for a running advance (reads may watch it).
  const busy = method === 'GET' ? undefined : host.advances.busyAdmin();
  if (busy) return busy;
  if (head === 'reset' && method === 'POST' && parts.length === 1) {
    // `wall`: when the clock reads its start (a living clock runs on from there; default now).
    const asked = (body as { wall?: unknown } | undefined)?.wall;
    const wall = asked === undefined ? undefined : new Date(String(asked));
    if (wall && Number.isNaN(wall.getTime())) return detail(400, '`wall` must be a date-time.');
    return { status: 200, body: await host.reset(wall) };
  }
  if (head === 'snapshot' && method === 'POST' && parts.length === 1) {
    // `file`: the name to write beside the data file; `clock`: the instant the copy stands at.
    const { file, clock } = (body ?? {}) as { file?: unknown; clock?: unknown };
    if (typeof file !== 'string') return detail(400, '`file` must be a string.');
    if (clock !== undefined && typeof clock !== 'string') return detail(400, '`clock` must be a date-time.');
    return { status: 200, body: await host.snapshot(file, clock === undefined ? undefined : new Date(clock)) };
  }
  if (head === 'snapshot' && method === 'DELETE' && parts.length === 2) {
    if (!host.dropSnapshotFile(parts[1]!)) return detail(404, `No snapshot file '${parts[1]}' written by this twin.`);
    return { status: 204 };
  }
  if (head === 'next-due' && method === 'POST' && parts.length === 1) {
    // The first lifecycle event due by `to` (an environment advance orders its twins' events by it).
    const to = new Date(String((body as { to?: unknown } | null)?.to));
    if (Number.isNaN(to.getTime())) return detail(400, '`to` must be a date-time.');
    const at = await host.nextDue(to);
    return { status: 200, body: { at: at?.toISOString() ?? null } };
  }
  if (head === 'deliveries' && resource === 'settle' && method === 'POST' && parts.length === 2) {
    // Every delivery due now has had its first attempt (bounded: a deaf endpoint is not waited for long).
    const settled = await Promise.race([host.deliveries.idle().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), SETTLE_MS).unref())]);
    return { status: 200, body: { settled } };
  }
  if (head === 'faults' && parts.length === 1) {
    if (method === 'GET') return { status: 200, body: { faults: host.faults.all } };
    if (method !== 'PUT') return detail(405, 'Method Not Allowed');
    // The whole list, as the control plane keeps it; written between provider requests.
    const list = (body as { faults?: unknown } | null)?.faults;
    if (!Array.isArray(list) || list.length > MAX_FAULTS) return detail(400, `\`faults\` must be a list of at most ${MAX_FAULTS} faults.`);
    const faults: Fault[] = [];
    for (const item of list) {
      const f = parseFault(item);
      if (typeof f === 'string') return detail(400, f);
      faults.push(f);
    }
    await host.pipeline.exclusive(() => host.faults.replace(faults));
    return { status: 200, body: { faults } };
  }
  if (head === 'records' && resource !== undefined && extra === undefined) {
    if (!host.keeps(resource)) return detail(404, `The ${host.twin.slug} twin keeps no records of kind '${resource}'.`);
    if (externalId === undefined) {
      if (method !== 'GET') return detail(405, 'Method Not Allowed');
      return { status: 200, body: host.listRecords(resource) };
    }
    if (method === 'GET') {
      const rec = host.getRecord(resource, externalId);
      if (!rec) return detail(404, `No ${resource} record '${externalId}'.`);
      return { status: 200, body: { external_id: externalId, resource, body: rec } };
    }
    if (resource === DELIVERY_RESOURCE && method !== 'GET') {
      // A rewritten delivery would be sent as is: an arbitrary POST with chosen headers and body.
      return detail(403, 'Delivery records are read-only: they record what the twin sent and are written only by the twin itself.');
    }
    if (method === 'PUT') {
      const fields = (body as { fields?: unknown } | null | undefined)?.fields;
      if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
        return detail(400, '`fields` must be an object.');
      }
      await host.putRecord(resource, externalId, fields as Record<string, unknown>);
      return { status: 200, body: { external_id: externalId, resource, body: fields } };
    }
    if (method === 'DELETE') {
      if (!(await host.deleteRecord(resource, externalId))) return detail(404, `No ${resource} record '${externalId}'.`);
      return { status: 204 };
    }
    return detail(405, 'Method Not Allowed');
  }
  return detail(404, 'Not Found');
}
