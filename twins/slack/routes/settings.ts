// Twin-only settings methods (no Slack equivalent; never rate limited), for callers without the
// control plane's records API:
//   twin.settings.get  {setting}                 → {setting, value}
//   twin.settings.set  {setting, value: object}  → {setting, value}   (fields merged)

import { invalidArguments, SlackError } from '../wire/errors.js';
import { SETTING_NAMES, getSetting, isHttpUrl, updateSetting, type EventsSetting, type SettingName } from '../model/settings.js';
import { verifyRequestUrl } from '../model/app-link.js';
import type { Args } from '../wire/params.js';
import type { MethodTable } from '../wire/method.js';

function settingName(args: Args): SettingName {
  const name = args.string('setting');
  if (!name || !(SETTING_NAMES as readonly string[]).includes(name)) {
    throw new SlackError('invalid_setting', { response_metadata: { messages: [`[ERROR] setting must be one of: ${SETTING_NAMES.join(', ')}`] } });
  }
  return name as SettingName;
}

export const settingMethods: MethodTable = {
  'twin.settings.get': ({ ctx, args }) => {
    const name = settingName(args);
    return { setting: name, value: getSetting(ctx, name) };
  },

  'twin.settings.set': async ({ ctx, args }) => {
    const name = settingName(args);
    const value = args.json('value');
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidArguments('value must be a JSON object');
    const changes = value as Record<string, unknown>;
    const url = name === 'events' ? changes.request_url : undefined;
    if (typeof url === 'string' && isHttpUrl(url) && url !== getSetting(ctx, 'events').request_url) {
      // Slack verifies a new events URL before it keeps it: the app must echo the challenge.
      const current = { ...getSetting(ctx, 'events'), ...changes } as EventsSetting;
      const ok = await verifyRequestUrl(url, current.signing_secret, current.verification_token, ctx.ids.token(48));
      if (!ok) {
        throw new SlackError('url_verification_failed', {
          response_metadata: { messages: ["[ERROR] Your URL didn't respond with the value of the challenge parameter."] },
        });
      }
    }
    const result = updateSetting(ctx, name, changes);
    if ('error' in result) throw invalidArguments(result.error);
    return { setting: name, value: result.value };
  },
};
