// The `Notion-Version` header: required on every API request (400 `missing_version` without it),
// one of the published versions (400 `validation_error` otherwise). From 2025-09-03 databases hold
// data sources (pages are parented by `data_source_id`, queries go to `/v1/data_sources/{id}/query`,
// search answers data sources); earlier versions see a database with its one data source's schema.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { NotionError, validation } from './errors.js';

export const NOTION_VERSIONS = ['2021-05-11', '2021-05-13', '2021-08-16', '2022-02-22', '2022-06-28', '2025-09-03'] as const;
export const LATEST_VERSION = '2025-09-03';

export interface ApiVersion {
  version: string;
  /** 2025-09-03 and later: the data source model. */
  dataSources: boolean;
}

export function apiVersion(req: TwinRequest): ApiVersion {
  const raw = req.headers['notion-version'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') {
    throw new NotionError(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.');
  }
  if (!(NOTION_VERSIONS as readonly string[]).includes(value)) {
    throw validation(
      `Notion-Version header failed validation: Notion-Version header should be one of ${NOTION_VERSIONS.map((v) => `"${v}"`).join(', ')}, instead was \`"${value}"\`.`,
    );
  }
  return { version: value, dataSources: value >= '2025-09-03' };
}
