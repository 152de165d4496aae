// Configuration read once from the environment (names as the README lists them).

import { resolve } from 'node:path';
import { EGRESS_POLICIES, type EgressPolicy } from '../twin-runtime/egress.js';
import type { JudgeLimits } from './testing/judges.js';

export type IdpMode = 'local' | 'oidc';
export type InvitationProvider = 'local' | 'workos';
export type PlanName = 'free' | 'paygo';
export type DriverName = 'process' | 'docker' | 'kubernetes';
/** Where twins may deliver webhooks: anywhere, only to public addresses (docs/decisions.md §12), or only to loopback. */
export type { EgressPolicy } from '../twin-runtime/egress.js';
/** Who takes payments: the house Stripe twin the control plane runs, Stripe itself, or nobody. */
export type PaymentProcessorName = 'house' | 'stripe' | 'none';

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
  /** Where the built web console is read from (an override for tests and benchmarks); default beside the control plane. */
  consoleDir?: string;
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
  /**
   * The control plane's base URL as twins' workloads reach it (TWINS_INTERNAL_URL, e.g. its cluster
   * Service); under the kubernetes driver a seeded or snapshotted twin fetches its starting file there.
   */
  internalUrl?: string;
  /** Host-routing domain for a cluster gateway (`<twin id>.<domain>`); unset locally. */
  domain?: string;
  logLevel: string;
  /** `pretty` (pino-pretty, one line per API request) or `json`; default pretty when stdout is a terminal. */
  logFormat: 'pretty' | 'json';
  /** TWINS_PAYMENT_PROCESSOR; default `stripe` when STRIPE_SECRET_KEY is set, else `house`. */
  paymentProcessor: PaymentProcessorName;
  /** Stripe's secret key (`stripe` processor); never logged nor answered. */
  stripeSecretKey?: string;
  /** Signing secret of the Stripe webhook endpoint pointing at this control plane. */
  stripeWebhookSecret?: string;
  /** STRIPE_API_BASE: another Stripe-compatible API (a standalone twin, stripe-mock); default Stripe's own. */
  stripeApiBase?: string;
  /** TWINS_USAGE_INTERVAL_S: how often usage is reported to the payment processor. */
  usageIntervalSeconds: number;
  /** Days request logs are kept, whatever the plan (TWINS_LOG_RETENTION_DAYS); unset: the plan's. */
  logRetentionDays?: number;
  /** Bytes of request and response bodies an environment's log keeps (TWINS_LOG_BODY_CAP_MB). */
  logBodyCapBytes: number;
  /** Twin deliveries' egress policy (TWINS_EGRESS): `any` locally, `public` in the images and manifests. */
  egress: EgressPolicy;
  /** How long SIGTERM waits for requests in flight (TWINS_DRAIN_MS). */
  drainMs: number;
  /** API requests admitted per second per organization (TWINS_API_RATE); the excess waits its turn. */
  apiRate: number;
  /**
   * Where test attempts are judged: threads (TWINS_JUDGE_THREADS) and each attempt's budget
   * (TWINS_ATTEMPT_CPU_MS, TWINS_ATTEMPT_MAX_ROWS, TWINS_ATTEMPT_DEADLINE_MS); unset limits keep
   * testing/judges.ts's defaults.
   */
  judges: { threads: number; limits: Partial<JudgeLimits> };
  /**
   * Milliseconds of the API thread's work each organization may use per second (TWINS_API_THREAD_MS):
   * beyond it, its requests wait their turn (cost-based, where TWINS_API_RATE counts requests).
   */
  apiThreadMsPerSecond: number;
}

/** API requests per second per organization unless TWINS_API_RATE says otherwise. */
export const DEFAULT_API_RATE = 200;
/** Milliseconds of API-thread work per second per organization unless TWINS_API_THREAD_MS says otherwise. */
export const DEFAULT_API_THREAD_MS = 200;

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got '${value}').`);
  return n;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')} (got '${value}').`);
  }
  return value as T;
}

function positiveSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds (got '${value}').`);
  return n;
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
    // The embedded local setup starts organizations on paygo; the image and the manifest set free.
    defaultPlan: oneOf('TWINS_DEFAULT_PLAN', env.TWINS_DEFAULT_PLAN, ['free', 'paygo'] as const, 'paygo'),
    driver: oneOf('TWINS_DRIVER', env.TWINS_DRIVER, ['process', 'docker', 'kubernetes'] as const, 'process'),
    image: env.TWINS_IMAGE || 'twins-runtime:local',
    namespace: env.TWINS_NAMESPACE || 'default',
    kubernetesDataVolume: oneOf('TWINS_K8S_DATA_VOLUME', env.TWINS_K8S_DATA_VOLUME, ['emptyDir', 'pvc'] as const, 'emptyDir'),
    kubernetesStorageClass: env.TWINS_K8S_STORAGE_CLASS || undefined,
    internalUrl: env.TWINS_INTERNAL_URL ? env.TWINS_INTERNAL_URL.replace(/\/+$/, '') : undefined,
    domain: env.TWINS_DOMAIN || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    logRetentionDays: positive('TWINS_LOG_RETENTION_DAYS', env.TWINS_LOG_RETENTION_DAYS),
    logBodyCapBytes: Math.round((positive('TWINS_LOG_BODY_CAP_MB', env.TWINS_LOG_BODY_CAP_MB) ?? 256) * 1024 * 1024),
    egress: oneOf('TWINS_EGRESS', env.TWINS_EGRESS, EGRESS_POLICIES, 'any'),
    drainMs: positive('TWINS_DRAIN_MS', env.TWINS_DRAIN_MS) ?? 10_000,
    apiRate: positive('TWINS_API_RATE', env.TWINS_API_RATE) ?? DEFAULT_API_RATE,
    judges: {
      threads: Math.round(positive('TWINS_JUDGE_THREADS', env.TWINS_JUDGE_THREADS) ?? 2),
      limits: Object.fromEntries(
        Object.entries({
          cpuMs: positive('TWINS_ATTEMPT_CPU_MS', env.TWINS_ATTEMPT_CPU_MS),
          maxRows: positive('TWINS_ATTEMPT_MAX_ROWS', env.TWINS_ATTEMPT_MAX_ROWS),
          deadlineMs: positive('TWINS_ATTEMPT_DEADLINE_MS', env.TWINS_ATTEMPT_DEADLINE_MS),
        }).filter(([, v]) => v !== undefined),
      ),
    },
    apiThreadMsPerSecond: positive('TWINS_API_THREAD_MS', env.TWINS_API_THREAD_MS) ?? DEFAULT_API_THREAD_MS,
    logFormat: oneOf('TWINS_LOG_FORMAT', env.TWINS_LOG_FORMAT, ['pretty', 'json'] as const, process.stdout.isTTY ? 'pretty' : 'json'),
    paymentProcessor: oneOf(
      'TWINS_PAYMENT_PROCESSOR',
      env.TWINS_PAYMENT_PROCESSOR,
      ['house', 'stripe', 'none'] as const,
      env.STRIPE_SECRET_KEY ? 'stripe' : 'house',
    ),
    stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
    stripeApiBase: env.STRIPE_API_BASE || undefined,
    usageIntervalSeconds: positiveSeconds('TWINS_USAGE_INTERVAL_S', env.TWINS_USAGE_INTERVAL_S, 3600),
    ...overrides,
  };
}
