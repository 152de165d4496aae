// Who a request acts as: always exactly one organization, the one its credential names.

export type Role = 'admin' | 'member';

export interface Principal {
  /** `session`: an identity-provider access token; `api_key`: an organization API key. */
  kind: 'session' | 'api_key';
  userId: string;
  email: string;
  orgId: string;
  role: Role;
  apiKeyId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a credential (health, OpenAPI, docs, JWKS). */
    public?: boolean;
  }
}
