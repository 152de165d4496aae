// Seed vocabulary and suggested starting states of the Slack twin, and how a seed plan becomes
// Slack objects: through the twin's own Web API, as the installed app and the workspace's people
// would — create (or reuse) the channel, invite the people, post messages as them over time,
// answer in threads, react, then archive where asked. Slack has no API to create people, so a
// seed works with the twin's starting workspace. Owned by the seeds component; index.ts re-exports it.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  {
    name: 'Support channel with threads',
    prompt: 'A channel named #support with 30 messages, 5 of them with 3 replies',
  },
  {
    name: 'Private team rooms',
    prompt: '3 private channels each with 10 messages',
  },
  {
    name: 'Incident and old channels',
    prompt: '5 channels, 2 of them archived, and a channel named #incidents with 12 messages, 4 of them with 2 reactions',
  },
  {
    name: 'Chatty general',
    prompt: 'A channel named #general with 50 messages',
  },
  {
    name: 'Leadership discussion',
    prompt: 'A private channel named #leadership with 8 messages, each with 2 replies',
  },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    channel: ['channel', 'channels', 'conversation', 'conversations'],
    message: ['message', 'messages', 'post', 'posts'],
    reply: ['reply', 'replies', 'thread reply', 'thread replies', 'response', 'responses'],
    reaction: ['reaction', 'reactions', 'emoji reaction', 'emoji reactions'],
  },
  states: {
    private: ['private'],
    public: ['public'],
    archived: ['archived'],
  },
  stateResources: {
    private: ['channel'],
    public: ['channel'],
    archived: ['channel'],
  },
  phrases: [],
  ownedBy: { message: 'channel', reply: 'message', reaction: 'message' },
  fillers: ['slack', 'workspace', 'each', 'are', 'is'],
};

const EMOJI = ['thumbsup', 'eyes', 'tada', 'heart', 'rocket', 'white_check_mark', 'raised_hands', 'fire', 'pray', 'joy'];

interface Person {
  id: string;
}

class SlackSeedSession {
  private people: Person[] = [];
  private readonly usedNames = new Set<string>();

  constructor(private readonly ctx: SeedExpansionContext) {}

  /** One Web API method; Slack answers 200 with `ok: false` on failure. */
  // biome-ignore lint/suspicious/noExplicitAny: the Web API method's JSON answer, read by the caller that named the method
  private async call(method: string, args: Record<string, unknown>): Promise<any> {
    const res = await this.ctx.api.call('POST', `/api/${method}`, args);
    if (!res.body?.ok) throw new SeedExpansionError(`The Slack twin refused ${method}: ${res.body?.error ?? 'no error given'}.`);
    return res.body;
  }

  async start(): Promise<void> {
    const list = await this.call('users.list', { limit: 200 });
    this.people = (list.members as { id: string; is_bot?: boolean; deleted?: boolean }[])
      .filter((u) => !u.is_bot && !u.deleted && u.id !== 'USLACKBOT')
      .map((u) => ({ id: u.id }));
    for (const c of (await this.call('conversations.list', { types: 'public_channel,private_channel', limit: 1000 })).channels as { name: string }[]) {
      this.usedNames.add(c.name);
    }
  }

  private author(key: string): Person | undefined {
    if (this.people.length === 0) return undefined;
    return this.people[this.ctx.values.number(key, 'author') % this.people.length];
  }

  private channelName(e: SeedEntity): { name: string; existing: boolean } {
    const v = this.ctx.values;
    if (e.attributes.name) {
      const name = e.attributes.name
        .replace(/^#/, '')
        .toLowerCase()
        .replace(/[^a-z0-9_-]+/g, '-')
        .slice(0, 80);
      return { name, existing: this.usedNames.has(name) };
    }
    const words = v.builtInPool('word');
    const wanted = `${v.pick(e.key, 'channel.name', words)}-${v.pick(e.key, 'channel.topic', words)}`;
    let name = wanted;
    for (let i = 2; this.usedNames.has(name); i++) name = `${wanted}-${i}`;
    this.usedNames.add(name);
    return { name, existing: false };
  }

  async channel(e: SeedEntity): Promise<void> {
    const { name, existing } = this.channelName(e);
    let channelId: string;
    if (existing) {
      // "#general" and "#random" come with the workspace: fill them rather than fail on name_taken.
      const all = (await this.call('conversations.list', { types: 'public_channel,private_channel', limit: 1000 })).channels as { id: string; name: string }[];
      channelId = all.find((c) => c.name === name)!.id;
      await this.call('conversations.join', { channel: channelId }).catch(() => undefined);
    } else {
      const created = await this.call('conversations.create', { name, is_private: e.states.includes('private') });
      channelId = created.channel.id as string;
      this.usedNames.add(name);
    }
    if (this.people.length > 0 && !existing) {
      await this.call('conversations.invite', { channel: channelId, users: this.people.map((p) => p.id).join(',') });
    }
    for (const m of e.children) {
      if (m.resource !== 'message') throw new SeedExpansionError(`A Slack channel holds messages, not ${m.resource} records.`);
      await this.message(channelId, m);
    }
    if (e.states.includes('archived')) await this.call('conversations.archive', { channel: channelId });
  }

  private async post(channel: string, key: string, field: string, threadTs?: string): Promise<string> {
    const v = this.ctx.values;
    // Messages arrive over time, a few minutes apart.
    await this.ctx.api.advanceBy(v.int(key, 'delay', 30, 600) * 1000);
    const text = v.pick(key, field, v.builtInPool('sentence'));
    const author = this.author(key);
    const args: Record<string, unknown> = { channel, text };
    if (threadTs) args.thread_ts = threadTs;
    const res = author ? await this.call('twin.messages.postAsUser', { ...args, user: author.id }) : await this.call('chat.postMessage', args);
    return (res.ts ?? res.message?.ts) as string;
  }

  private async message(channel: string, e: SeedEntity): Promise<void> {
    const ts = await this.post(channel, e.key, 'message.text');
    let reaction = 0;
    for (const c of e.children) {
      if (c.resource === 'reply') await this.post(channel, c.key, 'reply.text', ts);
      else if (c.resource === 'reaction') {
        const start = this.ctx.values.number(e.key, 'emoji');
        await this.call('reactions.add', { channel, timestamp: ts, name: EMOJI[(start + reaction++) % EMOJI.length] });
      } else throw new SeedExpansionError(`A Slack message cannot hold ${c.resource} records.`);
    }
  }
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new SlackSeedSession(ctx);
  await session.start();
  for (const e of entities) {
    if (e.resource !== 'channel')
      throw new SeedExpansionError(`Slack ${e.resource} records belong in a channel; name one ("a channel named #support with …").`);
    await session.channel(e);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'form', expand };
