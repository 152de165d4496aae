// The invitation adapter a deployment uses (TWINS_IDP_PROVIDER: local | workos).

import type { Config } from '../config.js';
import { LocalInvitationProvider } from './local-provider.js';
import type { InvitationProvider } from './provider.js';
import { WorkosInvitationProvider } from './workos-provider.js';

export function createInvitationProvider(config: Config): InvitationProvider {
  if (config.invitationProvider === 'workos') return new WorkosInvitationProvider(config.workosApiKey, config.workosBaseUrl);
  return new LocalInvitationProvider();
}

export { InvitationService } from './invitations.js';
export * from './provider.js';
