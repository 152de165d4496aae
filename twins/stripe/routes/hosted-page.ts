// Pieces of the HTML pages the twin serves in place of Stripe's hosted pages (the customer portal,
// Connect onboarding): escaping, the no-store HTML answer, hidden form fields.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export const esc = (v: unknown): string => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function html(status: number, body: string): TwinResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body };
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;
}
