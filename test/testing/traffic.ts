// Logged traffic for evaluator tests: rows written through the real request-log store into a real
// SQLite file, shaped as the gateway writes them (Stripe/Slack form bodies, GitHub JSON bodies).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Db } from '../../control-plane/store/database.js';
import { RequestLogStore, type RequestLogRow as StoredRow } from '../../control-plane/store/request-logs.js';
import type { RequestLogRow } from '../../control-plane/testing/observed-request.js';
import { TrafficWindow } from '../../control-plane/store/traffic-window.js';

export interface LoggedRequest {
  twin?: string;
  actor?: 'agent' | 'seed' | 'lifecycle';
  method: string;
  path: string;
  query?: string;
  headers?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  status?: number;
  response?: unknown;
}

export class TrafficLog {
  readonly db: Db;
  readonly store: RequestLogStore;
  readonly environmentId = randomUUID();
  private readonly dir: string;
  private tick = Date.parse('2026-01-01T00:00:00.000Z');

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'twins-eval-'));
    this.db = openDatabase(join(this.dir, 'cp.sqlite'));
    this.db.prepare("INSERT INTO organizations (id, external_id, name, plan, created_at) VALUES ('org', 'org', 'org', 'free', '2026-01-01T00:00:00Z')").run();
    this.store = new RequestLogStore(this.db);
  }

  /** Append requests in order; returns their log ids. */
  log(...reqs: LoggedRequest[]): string[] {
    const rows: StoredRow[] = reqs.map((r) => {
      this.tick += 1000;
      const form = r.form ? new URLSearchParams(r.form).toString() : null;
      return {
        id: randomUUID(),
        organization_id: 'org',
        environment_id: this.environmentId,
        environment_twin_id: 'twin-' + (r.twin ?? 'stripe'),
        twin_slug: r.twin ?? 'stripe',
        actor: r.actor ?? 'agent',
        method: r.method,
        path: r.path,
        query_string: r.query ?? '',
        status_code: r.status ?? 200,
        duration_ms: 1,
        occurred_at: new Date(this.tick).toISOString(),
        request_headers: JSON.stringify(r.headers ?? {}),
        request_content_type: form !== null ? 'application/x-www-form-urlencoded' : r.json !== undefined ? 'application/json' : null,
        request_body: form ?? (r.json !== undefined ? JSON.stringify(r.json) : null),
        request_body_truncated: 0,
        response_content_type: 'application/json',
        response_body: JSON.stringify(r.response ?? {}),
        response_body_truncated: 0,
      };
    });
    this.store.append(rows);
    return rows.map((r) => r.id);
  }

  /** All of the environment's traffic, as the attempts route reads a window. */
  window(): TrafficWindow {
    return new TrafficWindow(this.db, this.environmentId, '0000', '9999');
  }

  /** Every logged row, oldest first. */
  rows(): RequestLogRow[] {
    return this.db.prepare('SELECT * FROM request_logs WHERE environment_id = ? ORDER BY seq').all(this.environmentId) as RequestLogRow[];
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
