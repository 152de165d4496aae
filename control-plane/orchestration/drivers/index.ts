// Pick the driver the deployment asked for (TWINS_DRIVER). The process driver is the embedded
// default; docker and kubernetes are added by their own component, loaded only when chosen (their
// clients, dockerode and @kubernetes/client-node, take seconds to load and most runs never use them).

import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { TwinDriver } from './driver.js';
import { ProcessDriver } from './process.js';
import type { StartFileTokens } from '../start-files.js';

export async function createDriver(config: Config, startFiles?: StartFileTokens): Promise<TwinDriver> {
  switch (config.driver) {
    case 'process':
      return new ProcessDriver({
        stateDir: join(config.dataDir, 'workloads'),
        // TWINS_WARM_POOL: standby children per twin slug in use (default 1; 0 turns the pool off).
        warmPerSlug: process.env.TWINS_WARM_POOL === undefined ? 1 : Math.max(0, Number(process.env.TWINS_WARM_POOL) || 0),
        // TWINS_TWIN_START_TIMEOUT_MS: how long a twin process may take to answer its health check.
        startTimeoutMs: Number(process.env.TWINS_TWIN_START_TIMEOUT_MS) > 0 ? Number(process.env.TWINS_TWIN_START_TIMEOUT_MS) : undefined,
      });
    case 'docker': {
      const { DockerDriver } = await import('./docker.js');
      return new DockerDriver({ image: config.image });
    }
    case 'kubernetes': {
      const { KubernetesDriver } = await import('./kubernetes.js');
      return new KubernetesDriver({
        image: config.image,
        namespace: config.namespace,
        dataVolume: config.kubernetesDataVolume,
        storageClassName: config.kubernetesStorageClass,
        // Seeded and snapshotted twins fetch their starting file from the control plane.
        startFiles: config.internalUrl && startFiles ? { baseUrl: config.internalUrl, mint: (twinId) => startFiles.mint(twinId) } : undefined,
      });
    }
    default:
      throw new Error(`The '${config.driver}' driver is not available in this build.`);
  }
}
