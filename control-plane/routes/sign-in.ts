// Routes of the 'users' area through which a browser signs in (the web console, or any client of
// its kind): how this deployment signs in, and the exchange of a one-time proof of sign-in for an
// access token. Both answer without a credential — they are how a credential is obtained. Neither
// mints a token without the identity provider's say: a sign-in ticket is signed with the local
// identity provider's key (`twins console`), an authorization code comes from the OIDC issuer.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conflict, unauthorized } from '../http/errors.js';
import { errorResponses } from '../http/responses.js';
import { RequestValidationError, type ValidationEntry } from '../http/validation.js';
import { SignInTickets, TicketRefused } from '../console/sign-in-ticket.js';
import { OidcSignIn } from '../console/oidc-sign-in.js';

const tags = ['users'];

const signInOptions = z
  .object({
    mode: z.enum(['local', 'oidc']).describe('`local`: sign-in links printed by `twins console`; `oidc`: a redirect to the identity provider.'),
    authorization_endpoint: z.string().nullable().describe("The issuer's authorization endpoint (oidc), where the browser is sent with PKCE."),
    client_id: z.string().nullable().describe('The public client registered for the console at the issuer (TWINS_CONSOLE_CLIENT_ID).'),
    scope: z.string().nullable(),
    audience: z.string().nullable().describe('Sent as `audience` to issuers that need it to issue a JWT access token for this API (TWINS_IDP_AUDIENCE).'),
    detail: z.string().nullable().describe('Why signing in from a browser is not possible here, when it is not.'),
  })
  .meta({ id: 'SignInOptions' });

const tokenRequest = z
  .strictObject({
    grant_type: z.enum(['sign_in_ticket', 'authorization_code']),
    ticket: z.string().min(1).max(8192).optional().describe('sign_in_ticket: the ticket of a `twins console` sign-in link (the `#ticket=` fragment).'),
    code: z.string().min(1).max(4096).optional().describe("authorization_code: the code the issuer's redirect carried."),
    code_verifier: z.string().min(43).max(128).optional().describe('authorization_code: the PKCE verifier (RFC 7636) the challenge was made from.'),
    redirect_uri: z.string().min(1).max(2048).optional().describe('authorization_code: the redirect URI the authorization request named.'),
  })
  .meta({ id: 'TokenRequest' });

const tokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().nullable().describe('Seconds the token is valid for, when known.'),
  })
  .meta({ id: 'TokenResponse' });

type TokenRequest = z.infer<typeof tokenRequest>;

/** The fields a grant needs, as 422 `missing` entries when absent. */
function require<K extends keyof TokenRequest>(body: TokenRequest, fields: K[]): void {
  const entries: ValidationEntry[] = fields
    .filter((f) => body[f] === undefined)
    .map((f) => ({ type: 'missing', loc: ['body', f], msg: 'Field required', input: body }));
  if (entries.length > 0) throw new RequestValidationError(entries);
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const { config, db, localKeys, tokens } = app.services;
  const tickets = localKeys ? new SignInTickets(db, localKeys) : undefined;
  const oidc = new OidcSignIn(config);

  app.get(
    '/auth/sign-in',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'getSignInOptions',
        summary: 'How a browser signs in to this deployment',
        description:
          'No credential needed. Under the embedded identity provider (`local`), `twins console` prints a one-time sign-in link; ' +
          'under `oidc`, the browser is sent to `authorization_endpoint` (authorization code with PKCE, redirect URI `<this address>/`) ' +
          "and posts the code to `POST /auth/token`. 502 when the issuer's discovery document cannot be read.",
        security: [],
        response: { 200: signInOptions, ...errorResponses(502) },
      },
    },
    async () => {
      if (config.idp === 'local') {
        return { mode: 'local' as const, authorization_endpoint: null, client_id: null, scope: null, audience: null, detail: null };
      }
      const missing = oidc.missing;
      if (missing) return { mode: 'oidc' as const, authorization_endpoint: null, client_id: null, scope: null, audience: null, detail: missing };
      const { authorization_endpoint } = await oidc.endpoints();
      return {
        mode: 'oidc' as const,
        authorization_endpoint,
        client_id: config.consoleClientId!,
        scope: config.consoleScope,
        audience: config.idpAudience ?? null,
        detail: null,
      };
    },
  );

  app.post(
    '/auth/token',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'exchangeSignInProof',
        summary: 'Exchange a one-time sign-in proof for an access token',
        description:
          'No credential needed. `sign_in_ticket` (embedded identity provider): the ticket of a `twins console` link, usable once and ' +
          'for two minutes; the answer is an access token for the identity it names. `authorization_code` (oidc): the code and PKCE verifier ' +
          "of the issuer's redirect, exchanged at the issuer's token endpoint; the answer is the issuer's access token once this service " +
          'accepts it. 401 for a used, expired or refused proof; 409 for a grant this deployment does not sign in with; 502 when the issuer ' +
          'cannot be reached. The answer is never cached (`Cache-Control: no-store`).',
        security: [],
        body: tokenRequest,
        response: { 200: tokenResponse, ...errorResponses(401, 409, 502) },
      },
    },
    async (req, reply) => {
      const body = req.body;
      reply.header('cache-control', 'no-store');
      if (body.grant_type === 'sign_in_ticket') {
        require(body, ['ticket']);
        if (!tickets) throw conflict('This deployment signs in with its OIDC identity provider; sign-in tickets are for the embedded one.');
        try {
          return await tickets.redeem(body.ticket!);
        } catch (e) {
          if (e instanceof TicketRefused) throw unauthorized(e.message);
          throw e;
        }
      }
      require(body, ['code', 'code_verifier', 'redirect_uri']);
      if (config.idp !== 'oidc') throw conflict('This deployment uses the embedded identity provider: sign in with a `twins console` link.');
      const missing = oidc.missing;
      if (missing) throw conflict(missing);
      const issued = await oidc.exchange(body.code!, body.code_verifier!, body.redirect_uri!);
      if (!(await tokens.verify(issued.accessToken))) {
        throw unauthorized(
          "The identity provider's access token is not one this service accepts: it must be a JWT from TWINS_IDP_ISSUER for the audience " +
            'TWINS_IDP_AUDIENCE naming the organization and role (org_id + org_role, Clerk o.id/o.rol, or WorkOS org_id + role).',
        );
      }
      return { access_token: issued.accessToken, token_type: 'Bearer' as const, expires_in: issued.expiresIn ?? null };
    },
  );
};

export default routes;
