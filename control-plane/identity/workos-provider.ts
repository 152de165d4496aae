// `workos` invitations: the WorkOS User Management invitations API over undici.
//   POST {base}/user_management/invitations {email, organization_id, role_slug, expires_in_days, inviter_user_id?}
//   POST {base}/user_management/invitations/{id}/revoke
// Bearer WORKOS_API_KEY. "Already a member / already invited" answers map to 409, anything else to 502.

import { request } from 'undici';
import { IdentityProviderError, InvitationConflictError, type InvitationProvider, type SendInvitation, type SentInvitation } from './provider.js';

const TIMEOUT_MS = 10_000;

interface WorkosInvitation {
  object?: string;
  id?: unknown;
  created_at?: unknown;
  expires_at?: unknown;
}

export class WorkosInvitationProvider implements InvitationProvider {
  readonly name = 'workos' as const;

  constructor(
    private readonly apiKey: string | undefined,
    private readonly baseUrl: string,
  ) {}

  async send(inv: SendInvitation): Promise<SentInvitation> {
    const body: Record<string, unknown> = {
      email: inv.email,
      organization_id: inv.organizationExternalId,
      role_slug: inv.role,
      expires_in_days: inv.expiresInDays,
    };
    // WorkOS user ids look like `user_…`; a subject from another issuer is not one.
    if (inv.inviterExternalId.startsWith('user_')) body.inviter_user_id = inv.inviterExternalId;
    const { status, json } = await this.post('/user_management/invitations', body);
    if (status >= 200 && status < 300) {
      const w = json as WorkosInvitation;
      if (typeof w?.id !== 'string' || typeof w.expires_at !== 'string') {
        throw new IdentityProviderError('The identity provider answered the invitation with an unexpected body.');
      }
      const createdAt = typeof w.created_at === 'string' ? w.created_at : new Date().toISOString();
      return { id: w.id, createdAt: new Date(createdAt).toISOString(), expiresAt: new Date(w.expires_at).toISOString() };
    }
    if (isAlreadyMemberOrInvited(status, json)) {
      throw new InvitationConflictError(`${inv.email} is already a member of the organization or already has a pending invitation.`);
    }
    throw new IdentityProviderError(`The identity provider could not create the invitation (HTTP ${status}).`);
  }

  async revoke(id: string): Promise<void> {
    const { status } = await this.post(`/user_management/invitations/${encodeURIComponent(id)}/revoke`, undefined);
    if (status >= 200 && status < 300) return;
    throw new IdentityProviderError(`The identity provider could not revoke the invitation (HTTP ${status}).`);
  }

  private async post(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
    if (!this.apiKey) throw new IdentityProviderError('The identity provider is not configured (WORKOS_API_KEY is not set).');
    try {
      const res = await request(`${this.baseUrl.replace(/\/+$/, '')}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json };
    } catch (e) {
      throw new IdentityProviderError(`The identity provider could not be reached (${(e as Error).message}).`);
    }
  }
}

/** WorkOS answers 4xx with `{code, message}`; its codes for this case speak of "already" member/invited. */
function isAlreadyMemberOrInvited(status: number, json: unknown): boolean {
  if (status < 400 || status >= 500) return false;
  const o = (json ?? {}) as { code?: unknown; message?: unknown; errors?: { code?: unknown; message?: unknown }[] };
  const texts = [o.code, o.message, ...(Array.isArray(o.errors) ? o.errors.flatMap((e) => [e?.code, e?.message]) : [])]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.toLowerCase());
  return texts.some((t) => /already/.test(t) && /(member|invit|exists)/.test(t));
}
