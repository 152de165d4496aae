// Anthropic: the operations `@anthropic-ai/sdk` calls (its resource classes; paths carry /v1). The
// organization admin API (`/v1/organizations/…`, admin keys only) is listed, not served.

import { sdkSurface } from '../../../twin-runtime/spec-build/sdk-paths.js';
import type { ProviderSource } from '../../../twin-runtime/spec-build/source.js';

export function source(): ProviderSource {
  const sdk = sdkSurface(
    '@anthropic-ai/sdk',
    '',
    (_m, path) => `https://docs.anthropic.com/en/api/${path.split('/')[2] ?? ''}`,
    (path) => (path.startsWith('/v1/organizations/') ? 'organization admin API (admin keys only)' : undefined),
  );
  return {
    provider: 'anthropic',
    source: [{ role: 'sdk', package: '@anthropic-ai/sdk', version: sdk.version, file: 'resources/**/*.js', sha256: sdk.sha256 }],
    operations: sdk.operations,
    components: {},
    formats: new Set(),
  };
}
