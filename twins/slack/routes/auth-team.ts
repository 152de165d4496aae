// auth.test and team.info.

import { SlackError } from '../wire/errors.js';
import { currentTeam } from '../model/workspace.js';
import type { MethodTable } from '../wire/method.js';

export const authTeamMethods: MethodTable = {
  'auth.test': ({ ctx, actor }) => {
    const team = currentTeam(ctx);
    return {
      url: team.url ?? `https://${team.domain}.slack.com/`,
      team: team.name,
      user: actor.name,
      team_id: team.id,
      user_id: actor.id,
      bot_id: actor.profile.bot_id,
      is_enterprise_install: false,
    };
  },

  'team.info': ({ ctx, args }) => {
    const team = currentTeam(ctx);
    const asked = args.string('team');
    if (asked && asked !== team.id) throw new SlackError('team_not_found');
    return { team };
  },
};
