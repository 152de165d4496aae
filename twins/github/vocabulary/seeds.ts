// Seed vocabulary and suggested starting states of the GitHub twin, and how a seed plan becomes
// GitHub objects: through the twin's own REST API, as the token's user would — create the
// repository (initialised, so it has a default branch), open issues and label or close them,
// push a branch with a commit and open a pull request from it, merge or close it. A merged pull
// request therefore has its commits and its merge commit on the default branch.
// Owned by the seeds component; index.ts re-exports it.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  {
    name: 'Busy web repository',
    prompt: 'A repository named acme-web with 12 open issues, 4 of them labeled bug, 5 closed issues and 3 pull requests, 1 of them merged',
  },
  {
    name: 'Several services',
    prompt: '4 repositories each with 3 open issues and 2 merged pull requests',
  },
  {
    name: 'Review queue',
    prompt: 'A private repository named payments-api with 6 open pull requests, 2 of them draft, and 10 closed issues',
  },
  {
    name: 'Triage backlog',
    prompt: 'A repository named docs with 20 issues, 5 of them labeled good-first-issue, and 15 of them closed',
  },
  {
    name: 'A discussed issue',
    prompt: 'A repository named api with an issue titled "Login fails on Safari" with 4 comments',
  },
  {
    name: 'Public and private',
    prompt: '6 repositories, 2 of them private',
  },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    repository: ['repository', 'repositories', 'repo', 'repos'],
    issue: ['issue', 'issues', 'ticket', 'tickets', 'bug report', 'bug reports'],
    pull_request: ['pull request', 'pull requests', 'pr', 'prs'],
    comment: ['comment', 'comments'],
  },
  states: {
    open: ['open', 'opened'],
    closed: ['closed'],
    merged: ['merged'],
    draft: ['draft', 'drafts'],
    private: ['private'],
    public: ['public'],
  },
  stateResources: {
    open: ['issue', 'pull_request'],
    closed: ['issue', 'pull_request'],
    merged: ['pull_request'],
    draft: ['pull_request'],
    private: ['repository'],
    public: ['repository'],
  },
  phrases: [
    {
      // "labeled bug", "labelled good-first-issue", "tagged enhancement"
      pattern: /\b(?:labell?ed|tagged)\s+([a-z0-9][a-z0-9_.-]*)/,
      attribute: 'label',
      value: (g) => g[1]!,
    },
  ],
  ownedBy: { issue: 'repository', pull_request: 'repository', comment: 'issue' },
  fillers: ['github', 'each', 'are', 'is', 'an'],
};

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
}

interface Repo {
  owner: string;
  name: string;
  defaultBranch: string;
}

class GitHubSeedSession {
  private login = '';
  private readonly usedNames = new Set<string>();
  private sandbox: Repo | undefined;

  constructor(private readonly ctx: SeedExpansionContext) {}

  private get api() {
    return this.ctx.api;
  }

  async start(): Promise<void> {
    this.login = (await this.api.call('GET', '/user')).body.login as string;
  }

  private uniqueName(wanted: string): string {
    let name = wanted;
    for (let i = 2; this.usedNames.has(name.toLowerCase()); i++) name = `${wanted}-${i}`;
    this.usedNames.add(name.toLowerCase());
    return name;
  }

  async repository(e: SeedEntity): Promise<Repo> {
    const v = this.ctx.values;
    const words = v.builtInPool('word');
    const wanted = e.attributes.name?.split('/').pop() ?? `${v.pick(e.key, 'repository.name', words)}-${v.pick(e.key, 'repository.suffix', words)}`;
    const name = this.uniqueName(slug(wanted) || 'repo');
    const res = await this.api.call('POST', '/user/repos', {
      name,
      description: `${name} (seeded)`,
      private: e.states.includes('private'),
      auto_init: true,
    });
    const repo: Repo = { owner: res.body.owner.login as string, name: res.body.name as string, defaultBranch: (res.body.default_branch as string) ?? 'main' };
    for (const child of e.children) await this.child(repo, child);
    return repo;
  }

  private async defaultRepo(): Promise<Repo> {
    if (!this.sandbox) {
      this.sandbox = await this.repository({ resource: 'repository', key: 'default-repository', states: [], attributes: { name: 'sandbox' }, children: [] });
    }
    return this.sandbox;
  }

  async orphan(e: SeedEntity): Promise<void> {
    await this.child(await this.defaultRepo(), e);
  }

  private async child(repo: Repo, e: SeedEntity): Promise<void> {
    if (e.resource === 'issue') await this.issue(repo, e);
    else if (e.resource === 'pull_request') await this.pull(repo, e);
    else throw new SeedExpansionError(`A GitHub repository cannot directly hold ${e.resource} records; put them on an issue.`);
  }

  private async issue(repo: Repo, e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const title = e.attributes.name ?? capitalise(v.pick(e.key, 'issue.title', v.builtInPool('topic')));
    const body: Record<string, unknown> = { title, body: v.pick(e.key, 'issue.body', v.builtInPool('sentence')) };
    if (e.attributes.label) body.labels = [e.attributes.label];
    const res = await this.api.call('POST', `/repos/${repo.owner}/${repo.name}/issues`, body, { encoding: 'json' });
    const number = res.body.number as number;
    for (const c of e.children) {
      if (c.resource !== 'comment') throw new SeedExpansionError(`An issue cannot hold ${c.resource} records.`);
      await this.api.call(
        'POST',
        `/repos/${repo.owner}/${repo.name}/issues/${number}/comments`,
        { body: v.pick(c.key, 'comment.body', v.builtInPool('sentence')) },
        { encoding: 'json' },
      );
    }
    if (e.states.includes('closed')) {
      await this.api.call('PATCH', `/repos/${repo.owner}/${repo.name}/issues/${number}`, { state: 'closed' }, { encoding: 'json' });
    }
  }

  private async pull(repo: Repo, e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const base = `/repos/${repo.owner}/${repo.name}`;
    const title = e.attributes.name ?? capitalise(v.pick(e.key, 'pull.title', v.builtInPool('topic')));
    const branch = `seed/${slug(title)}-${(v.number(e.key, 'branch') % 0xffff).toString(16)}`;
    const head = await this.api.call('GET', `${base}/git/ref/heads/${repo.defaultBranch}`);
    await this.api.call('POST', `${base}/git/refs`, { ref: `refs/heads/${branch}`, sha: head.body.object.sha }, { encoding: 'json' });
    const path = `notes/${slug(branch)}.md`;
    await this.api.call(
      'PUT',
      `${base}/contents/${path}`,
      { message: title, content: Buffer.from(`# ${title}\n\n${v.pick(e.key, 'pull.body', v.builtInPool('sentence'))}\n`).toString('base64'), branch },
      { encoding: 'json' },
    );
    const pr = await this.api.call(
      'POST',
      `${base}/pulls`,
      { title, head: branch, base: repo.defaultBranch, body: v.pick(e.key, 'pull.description', v.builtInPool('sentence')), draft: e.states.includes('draft') },
      { encoding: 'json' },
    );
    const number = pr.body.number as number;
    if (e.states.includes('merged')) {
      await this.api.call('PUT', `${base}/pulls/${number}/merge`, { merge_method: 'merge' }, { encoding: 'json' });
    } else if (e.states.includes('closed')) {
      await this.api.call('PATCH', `${base}/pulls/${number}`, { state: 'closed' }, { encoding: 'json' });
    }
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new GitHubSeedSession(ctx);
  await session.start();
  for (const e of entities) {
    if (e.resource === 'repository') await session.repository(e);
    else if (e.resource === 'issue' || e.resource === 'pull_request') await session.orphan(e);
    else throw new SeedExpansionError(`The GitHub twin cannot seed ${e.resource} records on their own; put them on an issue.`);
    // A little time passes between repositories, so their timestamps tell them apart.
    await ctx.api.advanceBy(60_000);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
