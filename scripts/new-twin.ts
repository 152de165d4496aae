// Scaffold a new twin: `npm run new:twin -- <slug> [--name "Display Name"]`. Writes twins/<slug>/
// (definition, one resource modelled end to end in the house layout: wire/, model/, routes/,
// vocabulary/) and test/twins/<slug>/<slug>.test.ts. The registry finds the folder, so the twin is
// served, listed in the catalog and tested with no edit anywhere else. Replace the `item` resource
// with the provider's own; twin-runtime/contract.ts says what else a definition can carry.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadAllTwins, TWIN_SLUG_PATTERN } from '../twin-runtime/registry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface ScaffoldOptions {
  slug: string;
  /** As the catalog shows it; default: the slug capitalised. */
  name?: string;
  /** The repository to write into (default: this one). */
  root?: string;
}

/** A single-quoted TypeScript string literal (the house style). */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The files of a new twin, by path from the repository root. */
export function scaffoldFiles(slug: string, name: string, port: number): Record<string, string> {
  const keyPrefix = `${slug.replace(/-/g, '_')}_test_`;
  const t = `twins/${slug}`;
  return {
    [`${t}/index.ts`]: `// The ${name} twin (scaffolded by \`npm run new:twin -- ${slug}\`): one resource, \`item\`, modelled end
// to end. Replace it with the provider's own resources, answer in the provider's wire format and
// errors, and fill in what twin-runtime/contract.ts lists (spec source, SDK snippets, credential
// halves, MCP tools). See README.md.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { ITEM } from './model/items.js';
import { routes } from './routes/index.js';
import { OPERATIONS } from './vocabulary/phrasebook.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { authenticate } from './wire/auth.js';
import { errorResponse, ProviderError } from './wire/errors.js';

const twin: TwinDefinition = {
  slug: '${slug}',
  name: ${literal(name)},
  description: 'Items: create, list, retrieve and delete (a scaffold to replace with the provider API).',
  version: '0.1.0',
  storageVersion: 1,
  defaultPort: ${port},
  resources: [ITEM],
  mintKey: (random) => \`${keyPrefix}\${random(32)}\`,
  routes,
  authenticate,
  errors: {
    render: (e) => (e instanceof ProviderError ? errorResponse(e.status, e.type, e.message) : undefined),
    routeMiss: (req) => errorResponse(404, 'not_found', \`Unrecognized request URL (\${req.method}: \${req.path}).\`),
    parseFailure: (_req, _ctx, problem) =>
      errorResponse(problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large' ? 413 : 400, 'invalid_request', problem.message),
    unsupported: (_req, _ctx, sentence) => errorResponse(501, 'not_simulated', sentence),
  },
  suggestions,
  seeding,
  phrasebook: OPERATIONS,
};

export default twin;
`,
    [`${t}/README.md`]: `# ${name} twin

Scaffolded by \`npm run new:twin -- ${slug}\`. The registry (twin-runtime/registry.ts) finds this
folder: the twin is in the catalog, \`twins twin ${slug}\` serves it on port ${port}, and
test/twins/${slug}/ runs with the suite.

| folder | holds |
|---|---|
| \`index.ts\` | the definition: slug, catalog entry, routes, authentication, errors, seeding, phrasebook |
| \`wire/\` | the provider's wire format: authentication, error envelope |
| \`model/\` | one file per resource: typed arguments in, domain outcomes out (no HTTP) |
| \`routes/\` | one file per resource: HTTP to and from the model |
| \`vocabulary/\` | seed vocabulary and suggestions (\`seeds.ts\`), test-matcher phrases (\`phrasebook.ts\`) |

Next: replace \`item\` with the provider's resources; add \`spec/source.ts\` and \`specSource\` to serve
the provider's published surface through the generic layer (twin-runtime/generic/README.md), \`sdk\`
snippets for the provider's official SDKs, \`credentialExtras\` for the other halves of its
credential, and \`mcp\` for its MCP server's tools.
`,
    [`${t}/model/items.ts`]: `// Items: what the scaffold models. Typed arguments in, domain outcomes out; the routes speak HTTP.

import type { TwinContext } from '../../../twin-runtime/contract.js';

export const ITEM = 'item';

export interface Item {
  id: string;
  object: 'item';
  name: string;
  /** Unix seconds on the environment clock. */
  created: number;
}

export function createItem(ctx: TwinContext, name: string): Item {
  const item: Item = { id: ctx.ids.next('item_', 14), object: 'item', name, created: ctx.clock.nowSeconds() };
  ctx.store.put(ITEM, item.id, item);
  return item;
}

export function findItem(ctx: TwinContext, id: string): Item | undefined {
  return ctx.store.get<Item>(ITEM, id);
}

/** Every item, oldest first. */
export function listItems(ctx: TwinContext): Item[] {
  return ctx.store.list<Item>(ITEM);
}

/** Whether there was one to delete. */
export function deleteItem(ctx: TwinContext, id: string): boolean {
  return ctx.store.delete(ITEM, id);
}
`,
    [`${t}/routes/index.ts`]: `// Every hand-written route of the twin.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { itemRoutes } from './items.js';

export const routes: TwinRoute[] = [...itemRoutes];
`,
    [`${t}/routes/items.ts`]: `// /v1/items: create, list, retrieve, delete.

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { createItem, deleteItem, findItem, listItems, type Item } from '../model/items.js';
import { ProviderError } from '../wire/errors.js';

const MAX_NAME = 500;

function existing(ctx: TwinContext, id: string): Item {
  const item = findItem(ctx, id);
  if (!item) throw new ProviderError(404, 'not_found', \`No such item: '\${id}'.\`);
  return item;
}

export const itemRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/items',
    handler(req, ctx) {
      const name = req.body.name;
      if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME)
        throw new ProviderError(400, 'invalid_request', \`'name' is required: a string of 1 to \${MAX_NAME} characters.\`);
      return { status: 201, body: createItem(ctx, name) };
    },
  },
  { method: 'GET', path: '/v1/items', handler: (_req, ctx) => ({ status: 200, body: { object: 'list', data: listItems(ctx) } }) },
  { method: 'GET', path: '/v1/items/{id}', handler: (req, ctx) => ({ status: 200, body: existing(ctx, req.params.id!) }) },
  {
    method: 'DELETE',
    path: '/v1/items/{id}',
    handler(req, ctx) {
      const { id } = existing(ctx, req.params.id!);
      deleteItem(ctx, id);
      return { status: 200, body: { id, object: 'item', deleted: true } };
    },
  },
];
`,
    [`${t}/wire/auth.ts`]: `// The twin's key as a bearer token; anything else is refused in the provider's error envelope.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { presentedCredential } from '../../../twin-runtime/authorization.js';
import { errorResponse } from './errors.js';

export function authenticate(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const presented = presentedCredential(req);
  if (!presented) return errorResponse(401, 'unauthorized', 'No API key provided: send Authorization: Bearer <key>.');
  if (presented.secret !== ctx.apiKey) return errorResponse(401, 'unauthorized', 'Invalid API key provided.');
  return undefined;
}
`,
    [`${t}/wire/errors.ts`]: `// The provider's error envelope: \`{error: {type, message}}\` with the HTTP status.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

/** An error a route throws; the definition's \`errors.render\` answers it. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export function errorResponse(status: number, type: string, message: string): TwinResponse {
  return { status, body: { error: { type, message } } };
}
`,
    [`${t}/vocabulary/seeds.ts`]: `// Seed vocabulary and suggested starting states of the ${name} twin, and how a plan becomes items:
// through the twin's own API, as a user's code would.

import type { SeedEntity, SeedExpansionContext, SeedSuggestion, TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'A few items', prompt: '3 items' },
  { name: 'A dozen items', prompt: '12 items' },
  { name: 'One named item', prompt: 'an item named "Welcome"' },
  { name: 'Many items', prompt: '40 items' },
  { name: 'Two items', prompt: '2 items' },
];

export const seeding: TwinSeeding = {
  vocabulary: {
    nouns: { item: ['item', 'items'] },
    states: {},
    stateResources: {},
    phrases: [{ pattern: /\\bnamed\\s+"([^"]+)"/, attribute: 'name', value: (g) => g[1]! }],
    fillers: ['${slug}'],
  },
  encoding: 'json',
  async expand(entities: SeedEntity[], { api, values }: SeedExpansionContext) {
    for (const e of entities) {
      const name = e.attributes.name ?? \`\${values.pick(e.key, 'item.name', values.builtInPool('word'))} \${e.key}\`;
      await api.call('POST', '/v1/items', { name });
    }
  },
};
`,
    [`${t}/vocabulary/phrasebook.ts`]: `// The ${name} twin's phrasebook: the operations a test outcome may name, the phrase that names each
// one, the route it compiles to and the modifiers it understands (docs/matchers.md).

import { A, bodyEq, op, v, type PhrasebookOperation } from '../../../twin-runtime/phrasebook.js';

export const OPERATIONS: PhrasebookOperation[] = [
  {
    twin: '${slug}',
    label: 'create an item',
    phrase: op(\`\${v('create')}\\\\s+\${A}items?\`),
    method: 'POST',
    path: '/v1/items',
    modifiers: { name: bodyEq('/name') },
    produces: { noun: 'item', capture: 'response.body/id' },
  },
  {
    twin: '${slug}',
    label: 'delete an item',
    phrase: op(\`\${v('delete')}\\\\s+\${A}items?\`),
    method: 'DELETE',
    path: '/v1/items/{id}',
    modifiers: {},
  },
];
`,
    [`test/twins/${slug}/${slug}.test.ts`]: `// The ${name} twin as scaffolded: its item resource end to end over HTTP, the provider's errors, its
// seeds and phrasebook, and its place in the catalog.

import t from 'tap';
import { catalog } from '../../../control-plane/orchestration/catalog.js';
import { compilePhrasebook } from '../../../control-plane/testing/phrasebook.js';
import { seedFixture } from '../../seeds/seed-fixture.js';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('${slug}');
t.teardown(() => twin.close());
const call = async (method: string, path: string, body?: unknown, key = twin.apiKey) => {
  const res = await fetch(twin.url + path, {
    method,
    headers: { authorization: \`Bearer \${key}\`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

t.test('items: create, retrieve, list, delete', async (t) => {
  const created = await call('POST', '/v1/items', { name: 'Welcome' });
  t.equal(created.status, 201);
  t.match(created.body, { id: /^item_/, object: 'item', name: 'Welcome' });
  t.same((await call('GET', \`/v1/items/\${created.body.id}\`)).body, created.body);
  const list = await call('GET', '/v1/items');
  t.ok(list.body.data.length > 0, 'the list is not empty');
  t.ok(list.body.data.some((i: any) => i.id === created.body.id));
  t.same((await call('DELETE', \`/v1/items/\${created.body.id}\`)).body, { id: created.body.id, object: 'item', deleted: true });
  t.equal((await call('GET', \`/v1/items/\${created.body.id}\`)).status, 404);
});

t.test("the provider's errors", async (t) => {
  t.match(await call('POST', '/v1/items', { name: '' }), { status: 400, body: { error: { type: 'invalid_request' } } });
  t.match(await call('GET', '/v1/items', undefined, 'wrong'), { status: 401, body: { error: { type: 'unauthorized' } } });
  t.match(await call('GET', '/v1/nothing'), { status: 404, body: { error: { type: 'not_found' } } });
});

t.test('every suggested seed generates with the built-in planner', async (t) => {
  const seeds = await seedFixture('${slug}', (fn) => t.teardown(fn));
  t.ok(seeds.twin.suggestions.length >= 5);
  for (const s of seeds.twin.suggestions) t.ok(await seeds.seedFrom(s.prompt, s.name.replace(/\\W+/g, '-')), s.name);
});

t.test('the phrasebook reads its sentences', async (t) => {
  t.match(await compilePhrasebook('created an item named "Welcome"', ['${slug}']), {
    ok: true,
    assertions: [{ match: { twin: '${slug}', method: 'POST', path: '/v1/items', body: { '/name': 'Welcome' } } }],
  });
});

t.test('the catalog lists it', async (t) => {
  t.match(
    (await catalog()).find((c) => c.slug === '${slug}'),
    { name: ${literal(name)}, version: '0.1.0' },
  );
});
`,
  };
}

/** Write the scaffold; refuses a slug that is taken or not a valid folder name. Returns the files written. */
export async function scaffoldTwin(o: ScaffoldOptions): Promise<string[]> {
  const root = o.root ?? ROOT;
  if (!TWIN_SLUG_PATTERN.test(o.slug))
    throw new Error(`'${o.slug}' is not a twin slug: lowercase letters, digits and inner hyphens, starting with a letter, at most 30.`);
  if (existsSync(join(root, 'twins', o.slug))) throw new Error(`twins/${o.slug} exists already.`);
  const name = o.name ?? o.slug.replace(/(^|-)([a-z])/g, (_m, _dash: string, c: string) => c.toUpperCase());
  // The next free port of the 12111 + 10·n series (twin-runtime/contract.ts defaultPort).
  const ports = (await loadAllTwins()).map((d) => d.defaultPort);
  const port = Math.max(12101, ...ports) + 10;
  const files = scaffoldFiles(o.slug, name, port);
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    if (existsSync(file)) throw new Error(`${path} exists already.`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return Object.keys(files);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { name: { type: 'string' } } });
  const slug = positionals[0];
  if (!slug || positionals.length > 1) {
    process.stderr.write('usage: npm run new:twin -- <slug> [--name "Display Name"]\n');
    process.exit(2);
  }
  try {
    const written = await scaffoldTwin({ slug, name: values.name });
    process.stdout.write(`${written.map((f) => `created ${relative(process.cwd(), join(ROOT, f))}`).join('\n')}\n`);
    process.stdout.write(`The ${slug} twin is in the catalog now. Run its tests: npx tap test/twins/${slug}/\n`);
  } catch (e) {
    process.stderr.write(`new:twin: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
