// OpenAI: the operations the `openai` SDK calls (its resource classes), under /v1. The
// organization admin API (`/v1/organization/…`, admin keys only) is listed, not served.

import { sdkSurface } from '../../../twin-runtime/spec-build/sdk-paths.js';
import type { ProviderSource } from '../../../twin-runtime/spec-build/source.js';

export function source(): ProviderSource {
  const sdk = sdkSurface(
    'openai',
    '/v1',
    (_m, path) => `https://platform.openai.com/docs/api-reference/${path.split('/')[2] ?? ''}`,
    (path) => (path.startsWith('/v1/organization/') ? 'organization admin API (admin keys only)' : undefined),
  );
  return {
    provider: 'openai',
    source: [{ role: 'sdk', package: 'openai', version: sdk.version, file: 'resources/**/*.js', sha256: sdk.sha256 }],
    operations: sdk.operations,
    components: {},
    formats: new Set(),
  };
}
