// search.messages (user tokens only): messages whose text contains every word of the query, in
// conversations the person can read, newest first, paged as Slack pages search (`count`, `page`).

import { SlackError } from '../wire/errors.js';
import type { MethodTable } from '../wire/method.js';
import { getConversation, isMember } from '../model/conversations.js';
import type { Conversation, Message } from '../model/records.js';
import { compareTs } from '../model/slack-ids.js';
import { currentTeam } from '../model/workspace.js';

export const searchMethods: MethodTable = {
  'search.messages': ({ ctx, args, actor }) => {
    const query = args.string('query');
    if (!query) throw new SlackError('no_query');
    const words = query
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '');
    const count = Math.min(Math.max(args.int('count') ?? 20, 1), 100);
    const page = Math.max(args.int('page') ?? 1, 1);
    const readable = new Map<string, Conversation | undefined>();
    const canRead = (id: string) => {
      if (!readable.has(id)) {
        const c = getConversation(ctx, id);
        readable.set(id, c && (isMember(ctx, id, actor.id) || (!c.is_private && !c.is_im && !c.is_mpim)) ? c : undefined);
      }
      return readable.get(id);
    };
    const team = currentTeam(ctx);
    const hits = ctx.store
      .list<Message>('message')
      .filter((m) => m.subtype !== 'tombstone' && words.every((w) => m.text.toLowerCase().includes(w)) && canRead(m.channel))
      .sort((a, b) => compareTs(b.ts, a.ts));
    const pages = Math.max(1, Math.ceil(hits.length / count));
    const slice = hits.slice((page - 1) * count, page * count);
    const base = team.url ?? `https://${team.domain}.slack.com/`;
    return {
      query,
      messages: {
        total: hits.length,
        pagination: {
          total_count: hits.length,
          page,
          per_page: count,
          page_count: pages,
          first: (page - 1) * count + 1,
          last: (page - 1) * count + slice.length,
        },
        paging: { count, total: hits.length, page, pages },
        matches: slice.map((m) => {
          const c = canRead(m.channel)!;
          return {
            iid: `${m.channel}-${m.ts}`,
            team: team.id,
            channel: { id: c.id, name: c.name ?? c.id, is_private: !!c.is_private, is_mpim: !!c.is_mpim, is_im: !!c.is_im },
            type: 'message',
            user: m.user,
            ts: m.ts,
            text: m.text,
            permalink: `${base}archives/${m.channel}/p${m.ts.replace('.', '')}`,
          };
        }),
      },
    };
  },
};
