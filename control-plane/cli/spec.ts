// Every `twins` command in one table: its arguments and options drive parsing (args.ts), help
// (help.ts) and shell completion (completion.ts). Handlers are imported only when their command runs,
// so `twins twin stripe` loads the twin runtime and never the control plane.

import type { CommandContext } from './context.js';
import { FIDELITY_LEVELS } from '../../twin-runtime/fidelity.js';
import { CLOCK_MODES } from '../../twin-runtime/clock.js';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';

// biome-ignore lint/suspicious/noConfusingVoidType: most commands answer nothing (exit 0); some answer an exit status
export type Handler = (ctx: CommandContext) => Promise<number | void>;

export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder in help (`--name NAME`). */
  value?: string;
  multiple?: boolean;
  help: string;
  /** Environment variable read when the option is absent. */
  env?: string;
  /** Whole number in [min, max]. */
  int?: { min: number; max: number };
  choices?: readonly string[];
  /** Completion words for the value (`slugs`: the twins of this build). */
  complete?: 'slugs' | 'files';
  required?: boolean;
}

export interface ArgSpec {
  name: string;
  help: string;
  optional?: boolean;
  complete?: 'slugs' | 'commands';
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Longer text under the usage line. */
  description?: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  subcommands?: CommandSpec[];
  /** Talks to the REST API: takes --url/--token (and --json unless `json: false`). */
  api?: boolean;
  /** Prints data: takes --json. */
  json?: boolean;
  examples?: string[];
  load?: () => Promise<Handler>;
}

export const HELP: OptionSpec = { name: 'help', short: 'h', type: 'boolean', help: 'show this help' };
export const VERSION: OptionSpec = { name: 'version', type: 'boolean', help: 'print the version' };
export const JSON_OPTION: OptionSpec = { name: 'json', type: 'boolean', help: 'print JSON instead of text' };
export const API_OPTIONS: OptionSpec[] = [
  {
    name: 'url',
    type: 'string',
    value: 'URL',
    env: 'TWINS_URL',
    help: 'control plane URL (default: the server of TWINS_DATA_DIR, else http://127.0.0.1:8080)',
  },
  { name: 'token', type: 'string', value: 'TOKEN', env: 'TWINS_TOKEN', help: 'access token or twk_ API key (also TWINS_API_KEY)' },
];

const page: OptionSpec[] = [
  { name: 'page', type: 'string', value: 'N', int: { min: 1, max: 1_000_000 }, help: 'page number (default 1)' },
  { name: 'size', type: 'string', value: 'N', int: { min: 1, max: 100 }, help: 'items per page, 1..100 (default 50)' },
];
const timeout: OptionSpec = {
  name: 'timeout',
  type: 'string',
  value: 'SECONDS',
  int: { min: 1, max: 86_400 },
  help: 'give up waiting after this long (default 120)',
};
/** An environment's fidelity and clock (decisions §15): `twins env create` and a standalone `twins twin`. */
const fidelityOption: OptionSpec = {
  name: 'fidelity',
  type: 'string',
  value: 'strict|lenient',
  choices: ['strict', 'lenient'],
  help: "strict (default) refuses what a twin does not simulate in the provider's error shape; lenient answers permissively",
};
const clockOption: OptionSpec = {
  name: 'clock',
  type: 'string',
  value: 'living|frozen',
  choices: CLOCK_MODES,
  help: 'living (default) runs with wall time, moved forward by advance; frozen moves only on advance (byte-identical runs)',
};
const envId: ArgSpec = { name: 'ENV_ID', help: 'environment id' };
const twinId: ArgSpec = { name: 'TWIN_ID', help: 'twin id (an environment twin, from `twins env get`)' };
const recordArgs: ArgSpec[] = [envId, twinId, { name: 'RESOURCE', help: 'record kind, e.g. customer, repository, channel' }];
const externalId: ArgSpec = { name: 'EXTERNAL_ID', help: "the record's provider id, e.g. cus_…" };

const load =
  <M>(mod: () => Promise<M>, pick: (m: M) => Handler) =>
  () =>
    mod().then(pick);

export const ROOT: CommandSpec = {
  name: 'twins',
  summary: `Isolated, stateful twins of third-party APIs (${TWIN_SLUGS.join(', ')}) behind a control plane.`,
  subcommands: [
    {
      name: 'serve',
      summary: 'start the control plane',
      description:
        'Serves the REST API, /docs, /mcp and /metrics, and runs twins with the configured driver.\n' +
        'Configuration comes from the environment (PORT, HOST, TWINS_DATA_DIR, TWINS_IDP, TWINS_DRIVER, …; see the README).',
      options: [
        { name: 'port', type: 'string', value: 'N', int: { min: 0, max: 65535 }, env: 'PORT', help: 'port to listen on (default 8080)' },
        { name: 'host', type: 'string', value: 'HOST', env: 'HOST', help: 'interface to listen on (default 127.0.0.1)' },
        { name: 'data', type: 'string', value: 'DIR', env: 'TWINS_DATA_DIR', complete: 'files', help: 'data directory (default ./.data)' },
      ],
      load: load(
        () => import('./serve.js'),
        (m) => m.serve,
      ),
    },
    {
      name: 'token',
      summary: 'print an access token from the local identity provider',
      description:
        "Signs with the key of the data directory's server (TWINS_DATA_DIR, default ./.data), so run it where `twins serve` runs.\n" +
        'Refuses when no server has used that directory, or when its server does not use the local identity provider.',
      json: true,
      options: [
        { name: 'email', type: 'string', value: 'EMAIL', required: true, help: 'the user' },
        { name: 'org', type: 'string', value: 'ORG', required: true, help: 'the organization (created on first use)' },
        { name: 'role', type: 'string', value: 'ROLE', required: true, choices: ['admin', 'member'], help: 'admin or member' },
        { name: 'first-name', type: 'string', value: 'NAME', help: 'given name' },
        { name: 'last-name', type: 'string', value: 'NAME', help: 'family name' },
        { name: 'ttl', type: 'string', value: 'SECONDS', int: { min: 1, max: 31_536_000 }, help: 'lifetime (default 3600)' },
        { name: 'data', type: 'string', value: 'DIR', env: 'TWINS_DATA_DIR', complete: 'files', help: 'data directory of the server (default ./.data)' },
      ],
      examples: ['export TWINS_TOKEN=$(twins token --email ada@example.com --org acme --role admin)'],
      load: load(
        () => import('./token.js'),
        (m) => m.token,
      ),
    },
    {
      name: 'console',
      summary: 'print a one-time sign-in link to the web console (and open it)',
      description:
        "Signs with the key of the data directory's server (TWINS_DATA_DIR, default ./.data), like `twins token`.\n" +
        'The link carries a ticket valid for two minutes and usable once; stdout has the link alone.',
      options: [
        { name: 'email', type: 'string', value: 'EMAIL', required: true, help: 'the user' },
        { name: 'org', type: 'string', value: 'ORG', required: true, help: 'the organization (created on first use)' },
        { name: 'role', type: 'string', value: 'ROLE', required: true, choices: ['admin', 'member'], help: 'admin or member' },
        { name: 'first-name', type: 'string', value: 'NAME', help: 'given name' },
        { name: 'last-name', type: 'string', value: 'NAME', help: 'family name' },
        { name: 'session', type: 'string', value: 'SECONDS', int: { min: 1, max: 86_400 }, help: 'console session lifetime (default 8 h)' },
        { name: 'url', type: 'string', value: 'URL', help: 'the control plane (default: the server of the data directory)' },
        { name: 'no-open', type: 'boolean', help: 'print the link without opening a browser' },
        { name: 'data', type: 'string', value: 'DIR', env: 'TWINS_DATA_DIR', complete: 'files', help: 'data directory of the server (default ./.data)' },
      ],
      examples: ['twins console --email ada@example.com --org acme --role admin'],
      load: load(
        () => import('./console.js'),
        (m) => m.consoleSignIn,
      ),
    },
    {
      name: 'ca',
      summary: "print the path of the local CA's PEM (every twin URL also answers https:// with a certificate it signed)",
      description:
        'The CA lives in the data directory (TWINS_DATA_DIR, default ./.data) and is made on first start.\n' +
        'Trust it with NODE_EXTRA_CA_CERTS (Node), SSL_CERT_FILE (curl, Python, Go, gh) or GIT_SSL_CAINFO (git).',
      json: true,
      examples: ['export NODE_EXTRA_CA_CERTS=$(twins ca)', 'git -c http.sslCAInfo=$(twins ca) clone https://x-access-token:$KEY@127.0.0.1:PORT/OWNER/REPO.git'],
      load: load(
        () => import('./twin.js'),
        (m) => m.ca,
      ),
    },
    {
      name: 'twin',
      summary: 'run one twin alone, or read a twin of an environment',
      description:
        'twins twin SLUG runs one twin without the control plane on its default port (stripe 12111, github 12121, slack 12131, openai 12141, anthropic 12151, linear 12161, jira 12171, notion 12181, twilio 12191, sendgrid 12201),\n' +
        'keeping its records and its key in the data file across restarts.',
      args: [{ name: 'SLUG', help: 'the twin to run: stripe, github, slack, openai, anthropic, linear, jira, notion, twilio, sendgrid', complete: 'slugs' }],
      json: true,
      options: [
        {
          name: 'port',
          type: 'string',
          value: 'N',
          int: { min: 0, max: 65535 },
          help: "port (default: the twin's own, e.g. 12111 for stripe; 0 picks a free one)",
        },
        { name: 'host', type: 'string', value: 'HOST', help: 'interface (default 127.0.0.1)' },
        { name: 'data', type: 'string', value: 'FILE', complete: 'files', help: 'SQLite data file (default $TWINS_DATA_DIR/standalone/SLUG.sqlite)' },
        { name: 'key', type: 'string', value: 'KEY', help: 'the API key to accept (default: the one kept in the data file, else a new one)' },
        fidelityOption,
        clockOption,
      ],
      examples: ['twins twin stripe', 'twins twin github --port 0 --data /tmp/github.sqlite --json'],
      load: load(
        () => import('./twin.js'),
        (m) => m.standalone,
      ),
      subcommands: [
        {
          name: 'credential',
          summary: "print a twin's URL and key as export lines",
          args: [twinId],
          api: true,
          json: true,
          examples: ['eval "$(twins twin credential TWIN_ID)"'],
          load: load(
            () => import('./twin.js'),
            (m) => m.credential,
          ),
        },
        {
          name: 'get',
          summary: 'show a twin of an environment',
          args: [twinId],
          api: true,
          json: true,
          load: load(
            () => import('./twin.js'),
            (m) => m.get,
          ),
        },
      ],
    },
    {
      name: 'env',
      summary: 'create, list, read, reset, delete, snapshot, fork and diff environments; inject faults',
      subcommands: [
        {
          name: 'create',
          summary: 'create an environment',
          api: true,
          json: true,
          options: [
            { name: 'name', type: 'string', value: 'NAME', required: true, help: 'a name for it' },
            {
              name: 'twin',
              type: 'string',
              value: 'SLUG[@SEED_ID]',
              multiple: true,
              complete: 'slugs',
              help: 'a twin to run, optionally from a seed (repeat for more)',
            },
            { name: 'scenario', type: 'string', value: 'SCENARIO_ID', help: 'start from a scenario instead of (or besides) --twin' },
            { name: 'snapshot', type: 'string', value: 'SNAPSHOT_ID', help: 'start from a snapshot: its twins, records and clock (besides any --twin)' },
            { name: 'ttl', type: 'string', value: 'SECONDS', int: { min: 1, max: 31_536_000 }, help: "lifetime (capped by the plan's)" },
            fidelityOption,
            clockOption,
            {
              name: 'clock-start',
              type: 'string',
              value: 'DATE_TIME',
              help: "where the clock starts (default now; a replay's target: the file's clock_start)",
            },
            { name: 'wait', type: 'boolean', help: 'wait until every twin is ready' },
            timeout,
          ],
          examples: ['twins env create --name demo --twin stripe --twin github --wait --json', 'twins env create --name ci --twin stripe --clock frozen'],
          load: load(
            () => import('./env.js'),
            (m) => m.create,
          ),
        },
        {
          name: 'list',
          summary: 'list environments (newest first)',
          api: true,
          json: true,
          options: page,
          load: load(
            () => import('./env.js'),
            (m) => m.list,
          ),
        },
        {
          name: 'get',
          summary: 'show an environment and its twins',
          args: [envId],
          api: true,
          json: true,
          load: load(
            () => import('./env.js'),
            (m) => m.get,
          ),
        },
        {
          name: 'wait',
          summary: 'wait until every twin of an environment is ready',
          args: [envId],
          api: true,
          json: true,
          options: [timeout],
          load: load(
            () => import('./env.js'),
            (m) => m.wait,
          ),
        },
        {
          name: 'reset',
          summary: 'put every twin back to its seed (or empty) state and the clock back',
          args: [envId],
          api: true,
          json: true,
          load: load(
            () => import('./env.js'),
            (m) => m.reset,
          ),
        },
        {
          name: 'delete',
          summary: 'delete an environment and its twins',
          args: [envId],
          api: true,
          json: true,
          load: load(
            () => import('./env.js'),
            (m) => m.remove,
          ),
        },
        {
          name: 'snapshot',
          summary: "copy every twin's records and the clock at one instant",
          args: [envId],
          api: true,
          json: true,
          options: [{ name: 'name', type: 'string', value: 'NAME', required: true, help: 'a name for it' }],
          examples: ['twins env snapshot ENV_ID --name "before the agent"'],
          load: load(
            () => import('./env.js'),
            (m) => m.snapshot,
          ),
        },
        {
          name: 'fork',
          summary: 'a new environment with the same records and clock, diverging from here',
          args: [envId],
          api: true,
          json: true,
          options: [
            { name: 'name', type: 'string', value: 'NAME', help: 'a name for the fork (default: the name with " (fork)")' },
            { name: 'wait', type: 'boolean', help: 'wait until every twin of the fork is ready' },
            timeout,
          ],
          load: load(
            () => import('./env.js'),
            (m) => m.fork,
          ),
        },
        {
          name: 'diff',
          summary: 'records added, changed and removed since a snapshot',
          args: [envId],
          api: true,
          json: true,
          options: [
            { name: 'snapshot', type: 'string', value: 'SNAPSHOT_ID', help: 'compare the environment now with this snapshot' },
            { name: 'from', type: 'string', value: 'SNAPSHOT_ID', help: 'compare two snapshots: the earlier one' },
            { name: 'to', type: 'string', value: 'SNAPSHOT_ID', help: 'compare two snapshots: the later one' },
            { name: 'limit', type: 'string', value: 'N', int: { min: 1, max: 10_000 }, help: 'records listed per twin at most (default 1000)' },
          ],
          examples: ['twins env diff ENV_ID --snapshot SNAPSHOT_ID', 'twins env diff ENV_ID --from SNAPSHOT_ID --to SNAPSHOT_ID --json'],
          load: load(
            () => import('./env.js'),
            (m) => m.diff,
          ),
        },
        {
          name: 'export',
          summary: "the environment's traffic as a replay file (JSON on stdout)",
          args: [envId],
          api: true,
          json: false,
          examples: ['twins env export ENV_ID > traffic.json'],
          load: load(
            () => import('./env.js'),
            (m) => m.exportLogs,
          ),
        },
        {
          name: 'replay',
          summary: 'replay a file into the environment and name the first answer that differs (exit 1 when one does)',
          args: [envId],
          api: true,
          json: true,
          options: [{ name: 'file', type: 'string', value: 'FILE', required: true, complete: 'files', help: 'the replay file (`-`: stdin)' }],
          examples: [
            'twins env create --name again --twin stripe --clock frozen --clock-start 2026-03-02T09:00:00Z --wait',
            'twins env replay ENV_ID --file traffic.json',
          ],
          load: load(
            () => import('./env.js'),
            (m) => m.replay,
          ),
        },
        {
          name: 'faults',
          summary: "faults injected into the environment's twins: rate limits, 5xx, latency, dropped connections",
          subcommands: [
            {
              name: 'add',
              summary: 'inject a fault into one twin (its probability drawn from the seeded random source)',
              args: [envId],
              api: true,
              json: true,
              options: [
                { name: 'twin', type: 'string', value: 'TWIN_ID', required: true, help: 'the twin it applies to' },
                {
                  name: 'effect',
                  type: 'string',
                  value: 'TYPE',
                  required: true,
                  choices: ['rate_limit', 'server_error', 'latency', 'drop', 'late', 'twice', 'out_of_order'],
                  help: 'what it does (late, twice, out_of_order: to the webhooks the request causes)',
                },
                { name: 'method', type: 'string', value: 'METHOD', help: 'only requests of this method' },
                { name: 'path', type: 'string', value: 'TEMPLATE', help: "only this path template (the provider's, e.g. /v1/customers/{customer}) or path" },
                {
                  name: 'body',
                  type: 'string',
                  value: 'FIELD=VALUE',
                  multiple: true,
                  help: 'only requests whose body has this field and value (repeat for more)',
                },
                { name: 'probability', type: 'string', value: 'P', help: 'share of matching requests struck, above 0 and at most 1 (default 1)' },
                { name: 'ms', type: 'string', value: 'MS', int: { min: 0, max: 60_000 }, help: 'latency, late: the delay' },
                { name: 'jitter', type: 'string', value: 'MS', int: { min: 0, max: 60_000 }, help: 'latency, late: up to this much more, seeded' },
                { name: 'retry-after', type: 'string', value: 'SECONDS', int: { min: 0, max: 3600 }, help: 'rate_limit: the Retry-After sent (default 1)' },
              ],
              examples: ['twins env faults add ENV_ID --twin TWIN_ID --effect rate_limit --method POST --path /v1/customers --probability 0.3'],
              load: load(
                () => import('./faults.js'),
                (m) => m.add,
              ),
            },
            {
              name: 'list',
              summary: "list the environment's faults",
              args: [envId],
              api: true,
              json: true,
              options: page,
              load: load(
                () => import('./faults.js'),
                (m) => m.list,
              ),
            },
            {
              name: 'delete',
              summary: 'remove a fault',
              args: [envId, { name: 'FAULT_ID', help: 'fault id' }],
              api: true,
              json: true,
              load: load(
                () => import('./faults.js'),
                (m) => m.remove,
              ),
            },
          ],
        },
      ],
    },
    {
      name: 'logs',
      summary: "list an environment's request log (newest first), or follow it",
      args: [envId],
      api: true,
      json: true,
      options: [
        { name: 'follow', short: 'f', type: 'boolean', help: 'keep printing new requests as they are served (oldest first)' },
        { name: 'twin', type: 'string', value: 'TWIN_ID', help: 'only requests served by this twin' },
        { name: 'status', type: 'string', value: 'CODE', int: { min: 100, max: 599 }, help: 'only requests answered with this status' },
        {
          name: 'fidelity',
          type: 'string',
          value: 'LEVEL',
          choices: FIDELITY_LEVELS,
          help: 'only requests the twin answered at this level: modelled, inferred, stored or unsupported',
        },
        ...page,
      ],
      examples: ['twins logs ENV_ID --follow', 'twins logs ENV_ID --status 402 --json', 'twins logs ENV_ID --fidelity unsupported'],
      load: load(
        () => import('./logs.js'),
        (m) => m.logs,
      ),
    },
    {
      name: 'records',
      summary: "read and replace a twin's records",
      subcommands: [
        {
          name: 'list',
          summary: 'list the records of one kind',
          args: recordArgs,
          api: true,
          json: true,
          load: load(
            () => import('./records.js'),
            (m) => m.list,
          ),
        },
        {
          name: 'get',
          summary: 'show one record',
          args: [...recordArgs, externalId],
          api: true,
          json: true,
          load: load(
            () => import('./records.js'),
            (m) => m.get,
          ),
        },
        {
          name: 'put',
          summary: 'replace (or create) one record',
          args: [...recordArgs, externalId],
          api: true,
          json: true,
          options: [
            { name: 'fields', type: 'string', value: 'JSON', help: 'the whole record as a JSON object' },
            { name: 'file', type: 'string', value: 'FILE', complete: 'files', help: 'read the JSON object from a file (- for stdin)' },
          ],
          examples: [`twins records put ENV_ID TWIN_ID customer cus_123 --fields '{"id":"cus_123","object":"customer","email":"a@example.com"}'`],
          load: load(
            () => import('./records.js'),
            (m) => m.put,
          ),
        },
        {
          name: 'delete',
          summary: 'delete one record',
          args: [...recordArgs, externalId],
          api: true,
          json: true,
          load: load(
            () => import('./records.js'),
            (m) => m.remove,
          ),
        },
      ],
    },
    {
      name: 'advance',
      summary: "move an environment's clock forward, running every due lifecycle event",
      args: [twinId],
      api: true,
      json: true,
      options: [{ name: 'at', type: 'string', value: 'DATETIME', help: 'ISO 8601 instant to move to (default: now)' }],
      examples: ['twins advance TWIN_ID --at 2030-01-01T00:00:00Z'],
      load: load(
        () => import('./advance.js'),
        (m) => m.advance,
      ),
    },
    {
      name: 'catalog',
      summary: 'list the twins available for new environments',
      api: true,
      json: true,
      load: load(
        () => import('./catalog.js'),
        (m) => m.catalog,
      ),
    },
    {
      name: 'seeds',
      summary: 'starting states described in words',
      subcommands: [
        {
          name: 'list',
          summary: 'list seeds (newest first)',
          api: true,
          json: true,
          options: [{ name: 'twin', type: 'string', value: 'SLUG', complete: 'slugs', help: "only one twin's" }],
          load: load(
            () => import('./seeds.js'),
            (m) => m.list,
          ),
        },
        {
          name: 'suggestions',
          summary: 'starting states the twins ship, as prompts',
          api: true,
          json: true,
          options: [{ name: 'twin', type: 'string', value: 'SLUG', complete: 'slugs', help: "only one twin's" }],
          load: load(
            () => import('./seeds.js'),
            (m) => m.suggestions,
          ),
        },
        {
          name: 'create',
          summary: 'describe a starting state; a worker generates it',
          api: true,
          json: true,
          options: [
            { name: 'name', type: 'string', value: 'NAME', required: true, help: 'a name for it' },
            { name: 'twin', type: 'string', value: 'SLUG', required: true, complete: 'slugs', help: 'the twin it is for' },
            { name: 'prompt', type: 'string', value: 'TEXT', required: true, help: 'the data, in words' },
            { name: 'wait', type: 'boolean', help: 'wait until it is generated' },
            timeout,
          ],
          load: load(
            () => import('./seeds.js'),
            (m) => m.create,
          ),
        },
        {
          name: 'get',
          summary: 'show a seed',
          args: [{ name: 'SEED_ID', help: 'seed id' }],
          api: true,
          json: true,
          load: load(
            () => import('./seeds.js'),
            (m) => m.get,
          ),
        },
        {
          name: 'delete',
          summary: 'delete a seed',
          args: [{ name: 'SEED_ID', help: 'seed id' }],
          api: true,
          json: true,
          load: load(
            () => import('./seeds.js'),
            (m) => m.remove,
          ),
        },
      ],
    },
    {
      name: 'snapshots',
      summary: "environments' records and clock at one instant",
      subcommands: [
        {
          name: 'list',
          summary: "list an environment's snapshots (newest first)",
          args: [envId],
          api: true,
          json: true,
          options: page,
          load: load(
            () => import('./snapshots.js'),
            (m) => m.list,
          ),
        },
        {
          name: 'get',
          summary: 'show a snapshot',
          args: [{ name: 'SNAPSHOT_ID', help: 'snapshot id' }],
          api: true,
          json: true,
          load: load(
            () => import('./snapshots.js'),
            (m) => m.get,
          ),
        },
        {
          name: 'delete',
          summary: 'delete a snapshot and its files',
          args: [{ name: 'SNAPSHOT_ID', help: 'snapshot id' }],
          api: true,
          json: true,
          load: load(
            () => import('./snapshots.js'),
            (m) => m.remove,
          ),
        },
      ],
    },
    {
      name: 'tests',
      summary: 'outcomes checked against the traffic of an environment',
      subcommands: [
        {
          name: 'create',
          summary: 'create a test from an outcome in words or from explicit assertions',
          api: true,
          json: true,
          options: [
            { name: 'name', type: 'string', value: 'NAME', required: true, help: 'a name for it' },
            { name: 'twin', type: 'string', value: 'SLUG', multiple: true, required: true, complete: 'slugs', help: 'a twin it is about (repeat for more)' },
            { name: 'outcome', type: 'string', value: 'TEXT', help: 'the outcome in words (AI generation)' },
            { name: 'assertions', type: 'string', value: 'FILE', complete: 'files', help: 'a JSON array of explicit assertions (- for stdin)' },
          ],
          examples: [`twins tests create --name refund --twin stripe --outcome 'created a customer named Ada'`],
          load: load(
            () => import('./tests.js'),
            (m) => m.create,
          ),
        },
        {
          name: 'list',
          summary: 'list tests (newest first)',
          api: true,
          json: true,
          options: page,
          load: load(
            () => import('./tests.js'),
            (m) => m.list,
          ),
        },
        {
          name: 'get',
          summary: 'show a test and its assertions',
          args: [{ name: 'TEST_ID', help: 'test id' }],
          api: true,
          json: true,
          load: load(
            () => import('./tests.js'),
            (m) => m.get,
          ),
        },
        {
          name: 'run',
          summary: "evaluate a test over an environment's traffic (exit 1 when it fails)",
          args: [{ name: 'TEST_ID', help: 'test id' }],
          api: true,
          json: true,
          options: [
            { name: 'env', type: 'string', value: 'ENV_ID', required: true, help: 'the environment whose traffic is checked' },
            { name: 'from', type: 'string', value: 'DATETIME', help: "window start (default: the environment's creation)" },
            { name: 'to', type: 'string', value: 'DATETIME', help: 'window end (default: now)' },
          ],
          load: load(
            () => import('./tests.js'),
            (m) => m.run,
          ),
        },
        {
          name: 'delete',
          summary: 'delete a test',
          args: [{ name: 'TEST_ID', help: 'test id' }],
          api: true,
          json: true,
          load: load(
            () => import('./tests.js'),
            (m) => m.remove,
          ),
        },
      ],
    },
    {
      name: 'mcp',
      summary: 'serve the MCP tools over stdio (for desktop agents and IDEs)',
      description:
        'With TWINS_URL (and TWINS_API_KEY) it drives that control plane. Without, it uses the server of TWINS_DATA_DIR\n' +
        'when one is running, else starts the embedded control plane in this process. It acts with TWINS_API_KEY or\n' +
        "TWINS_TOKEN when given (that credential's organization), else as --email in --org, by default the organization\n" +
        'of the last `twins token` or `twins console` sign-in from the data folder.',
      options: [
        ...API_OPTIONS,
        { name: 'data', type: 'string', value: 'DIR', env: 'TWINS_DATA_DIR', complete: 'files', help: 'data directory of the local server (default ./.data)' },
        { name: 'email', type: 'string', value: 'EMAIL', help: 'local identity to act as (default agent@twins.local)' },
        { name: 'org', type: 'string', value: 'ORG', help: 'local organization to act in (default: of the last local sign-in, else local)' },
      ],
      load: load(
        () => import('./mcp.js'),
        (m) => m.mcp,
      ),
    },
    {
      name: 'completion',
      summary: 'print a shell completion script (bash or zsh)',
      args: [{ name: 'SHELL', help: 'bash or zsh' }],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own ${fpath[1]}, printed for the user to run
      examples: ['source <(twins completion bash)', 'twins completion zsh > "${fpath[1]}/_twins"'],
      load: load(
        () => import('./completion.js'),
        (m) => m.completion,
      ),
    },
    { name: 'help', summary: 'show help for a command', args: [{ name: 'COMMAND', help: 'a command, e.g. env create', optional: true, complete: 'commands' }] },
    { name: 'version', summary: 'print the version' },
  ],
};

/** The command a path of names leads to, and the rest of the arguments. */
export function resolveCommand(argv: string[]): { path: CommandSpec[]; rest: string[] } {
  const path: CommandSpec[] = [ROOT];
  let i = 0;
  for (; i < argv.length; i++) {
    const next = path.at(-1)!.subcommands?.find((c) => c.name === argv[i]);
    if (!next) break;
    path.push(next);
  }
  return { path, rest: argv.slice(i) };
}

/** Options a command takes, globals included. */
export function optionsOf(cmd: CommandSpec): OptionSpec[] {
  const own = [...(cmd.options ?? [])];
  if (cmd.api) own.push(...API_OPTIONS);
  if (cmd.json || cmd.api) own.push(JSON_OPTION);
  return [...own, HELP, VERSION];
}
