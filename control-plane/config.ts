// Configuration read once from the environment (names as the README lists them).

import { resolve } from 'node:path';

export type IdpMode = 'local' | 'oidc';
export type InvitationProvider = 'local' | 'workos';
export type PlanName = 'free' | 'paygo';
export type DriverName = 'process' | 'docker' | 'kubernetes';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  idp: IdpMode;
  idpJwksUrl?: string;
  idpIssuer?: string;
  idpAudience?: string;
  /** Public OAuth client the web console signs in with under TWINS_IDP=oidc (PKCE, redirect URI `<base>/`). */
  consoleClientId?: string;
  /** Scope the console asks the identity provider for. */
  consoleScope: string;
  invitationProvider: InvitationProvider;
  workosApiKey?: string;
  workosBaseUrl: string;
  defaultPlan: PlanName;
  driver: DriverName;
  /** Twin-runtime image for the docker and kubernetes drivers. */
  image: string;
  /** Kubernetes namespace the twins' Pods and Services live in. */
  namespace: string;
  /** Kubernetes data volume per twin: `emptyDir` (default) or `pvc`. */
  kubernetesDataVolume: 'emptyDir' | 'pvc';
  kubernetesStorageClass?: string;
  /** Host-routing domain for a cluster gateway (`<twin id>.<domain>`); unset locally. */
  domain?: string;
  logLevel: string;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')} (got '${value}').`);
  }
  return value as T;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  return {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(env.TWINS_DATA_DIR ?? './.data'),
    idp: oneOf('TWINS_IDP', env.TWINS_IDP, ['local', 'oidc'] as const, 'local'),
    idpJwksUrl: env.TWINS_IDP_JWKS_URL,
    idpIssuer: env.TWINS_IDP_ISSUER,
    idpAudience: env.TWINS_IDP_AUDIENCE,
    consoleClientId: env.TWINS_CONSOLE_CLIENT_ID || undefined,
    consoleScope: env.TWINS_CONSOLE_SCOPE || 'openid profile email',
    invitationProvider: oneOf('TWINS_IDP_PROVIDER', env.TWINS_IDP_PROVIDER, ['local', 'workos'] as const, 'local'),
    workosApiKey: env.WORKOS_API_KEY,
    workosBaseUrl: env.WORKOS_BASE_URL ?? 'https://api.workos.com',
    defaultPlan: oneOf('TWINS_DEFAULT_PLAN', env.TWINS_DEFAULT_PLAN, ['free', 'paygo'] as const, 'free'),
    driver: oneOf('TWINS_DRIVER', env.TWINS_DRIVER, ['process', 'docker', 'kubernetes'] as const, 'process'),
    image: env.TWINS_IMAGE || 'twins-runtime:local',
    namespace: env.TWINS_NAMESPACE || 'default',
    kubernetesDataVolume: oneOf('TWINS_K8S_DATA_VOLUME', env.TWINS_K8S_DATA_VOLUME, ['emptyDir', 'pvc'] as const, 'emptyDir'),
    kubernetesStorageClass: env.TWINS_K8S_STORAGE_CLASS || undefined,
    domain: env.TWINS_DOMAIN || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    ...overrides,
  };
}
