// Twin-only settings methods (no Slack equivalent; never rate limited), for callers without the
// control plane's records API:
//   twin.settings.get  {setting}                 → {setting, value}
//   twin.settings.set  {setting, value: object}  → {setting, value}   (fields merged)

import { invalidArguments, SlackError } from '../wire/errors.js';
import { SETTING_NAMES, getSetting, updateSetting, type SettingName } from '../model/settings.js';
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

  'twin.settings.set': ({ ctx, args }) => {
    const name = settingName(args);
    const value = args.json('value');
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidArguments('value must be a JSON object');
    const result = updateSetting(ctx, name, value as Record<string, unknown>);
    if ('error' in result) throw invalidArguments(result.error);
    return { setting: name, value: result.value };
  },
};
