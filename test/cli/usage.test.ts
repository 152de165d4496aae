// The `twins` conventions: --help, -h and `help [command]` print on stdout and exit 0 at every
// level, so does --version; every usage error names the bad argument on stderr and exits 2; shell
// completion comes from the same command table.

import t from 'tap';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { cli } from './helpers.js';
import { ROOT, type CommandSpec } from '../../control-plane/cli/spec.js';
import { packageVersion } from '../../control-plane/package-info.js';

function paths(cmd: CommandSpec, prefix: string[] = []): string[][] {
  const here = cmd === ROOT ? [] : [...prefix, cmd.name];
  return [here, ...(cmd.subcommands ?? []).flatMap((c) => paths(c, here))];
}

t.test('help and version at every level', async (t) => {
  const all = paths(ROOT);
  t.ok(all.length > 30, `${all.length} commands`);
  const version = `twins ${packageVersion()}\n`;
  for (const path of all) {
    const name = ['twins', ...path].join(' ');
    const long = await cli([...path, '--help']);
    t.equal(long.code, 0, `${name} --help exits 0`);
    t.equal(long.stderr, '', `${name} --help writes nothing on stderr`);
    t.ok(long.stdout.startsWith(`${name} — `), `${name} --help names the command`);
    t.match(long.stdout, /\nUsage:\n {2}twins/);
    t.match(long.stdout, /-h, --help/);
    t.same(await cli([...path, '-h']), long, `${name} -h is --help`);
    t.same(await cli(['help', ...path]), long, `twins help ${path.join(' ')} is ${name} --help`);
    t.same(await cli([...path, '--version']), { code: 0, stdout: version, stderr: '' }, `${name} --version`);
  }
  t.same(await cli(['version']), { code: 0, stdout: version, stderr: '' });
  // Help wins over any other mistake on the line.
  t.equal((await cli(['env', 'create', '--bogus', '--help'])).code, 0);
  const create = (await cli(['env', 'create', '--help'])).stdout;
  for (const flag of ['--name NAME', '--twin SLUG[@SEED_ID]', '--wait', '--json', '--url URL', '--token TOKEN', 'env TWINS_URL']) t.match(create, flag);
});

t.test('every usage error names the argument and exits 2', async (t) => {
  const env = { TWINS_URL: 'http://127.0.0.1:9', TWINS_TOKEN: 'x' };
  const cases: [string[], string, RegExp][] = [
    [
      [],
      'twins',
      /^missing command \(one of: serve, token, console, ca, twin, env, logs, records, advance, catalog, seeds, snapshots, tests, mcp, completion, help, version\)$/,
    ],
    [['bogus'], 'twins', /^unknown command 'bogus' \(commands: serve, /],
    [['--bogus'], 'twins', /^unknown option '--bogus'$/],
    [['env'], 'twins env', /^missing command \(one of: create, list, get, wait, reset, delete, snapshot, fork, diff, export, replay, faults\)$/],
    [['env', 'bogus'], 'twins env', /^unknown command 'bogus'/],
    [['env', 'create'], 'twins env create', /^missing required option --name NAME \(a name for it\)$/],
    [['env', 'create', '--name'], 'twins env create', /^option '--name' needs a value$/],
    [['env', 'create', '--name', 'x'], 'twins env create', /^give at least one --twin SLUG, a --scenario SCENARIO_ID or a --snapshot SNAPSHOT_ID$/],
    [['env', 'create', '--name', 'x', '--twin', '@seed'], 'twins env create', /^--twin '@seed' names no twin/],
    [['env', 'create', '--name', 'x', '--twin', 'stripe', '--ttl', '0'], 'twins env create', /^--ttl must be a whole number from 1 to 31536000 \(got '0'\)$/],
    [['env', 'create', '--name', 'x', '--bogus'], 'twins env create', /^unknown option '--bogus'$/],
    [['env', 'create', '--name', 'x', '--wait=yes'], 'twins env create', /^option '--wait' does not take an argument$/],
    [['env', 'create', '--name', ''], 'twins env create', /^--name is empty$/],
    [['env', 'list', '--size', '101'], 'twins env list', /^--size must be a whole number from 1 to 100 \(got '101'\)$/],
    [['env', 'list', '--page', 'two'], 'twins env list', /^--page must be a whole number from 1 to 1000000 \(got 'two'\)$/],
    [['env', 'list', '--wait'], 'twins env list', /^unknown option '--wait'$/],
    [['env', 'get'], 'twins env get', /^missing argument ENV_ID \(environment id\)$/],
    [['env', 'get', 'a', 'b'], 'twins env get', /^unexpected argument 'b'$/],
    [['env', 'wait', 'a', '--timeout=-1'], 'twins env wait', /^--timeout must be a whole number from 1 to 86400 \(got '-1'\)$/],
    [['env', 'wait', 'a', '--timeout', '-1'], 'twins env wait', /^option '--timeout' argument is ambiguous$/],
    [['env', 'reset'], 'twins env reset', /^missing argument ENV_ID/],
    [['env', 'delete'], 'twins env delete', /^missing argument ENV_ID/],
    [['logs'], 'twins logs', /^missing argument ENV_ID/],
    [['logs', 'x', '--status', 'abc'], 'twins logs', /^--status must be a whole number from 100 to 599 \(got 'abc'\)$/],
    [['logs', 'x', '--status', '99'], 'twins logs', /^--status must be a whole number from 100 to 599 \(got '99'\)$/],
    [['logs', 'x', '--fidelity', 'perfect'], 'twins logs', /^--fidelity must be one of modelled, inferred, stored, unsupported \(got 'perfect'\)$/],
    [
      ['env', 'create', '--name', 'n', '--twin', 'stripe', '--clock', 'stopped'],
      'twins env create',
      /^--clock must be one of living, frozen \(got 'stopped'\)$/,
    ],
    [
      ['env', 'create', '--name', 'n', '--twin', 'stripe', '--fidelity', 'loose'],
      'twins env create',
      /^--fidelity must be one of strict, lenient \(got 'loose'\)$/,
    ],
    [['records'], 'twins records', /^missing command \(one of: list, get, put, delete\)$/],
    [['records', 'list', 'e', 't'], 'twins records list', /^missing argument RESOURCE/],
    [['records', 'get', 'e', 't', 'customer'], 'twins records get', /^missing argument EXTERNAL_ID/],
    [['records', 'put', 'e', 't', 'customer', 'cus_1'], 'twins records put', /^give the record as exactly one of --fields JSON or --file FILE$/],
    [['records', 'put', 'e', 't', 'customer', 'cus_1', '--fields', '{}', '--file', 'x'], 'twins records put', /^give the record as exactly one of/],
    [['records', 'put', 'e', 't', 'customer', 'cus_1', '--fields', 'nope'], 'twins records put', /^--fields is not valid JSON: /],
    [['records', 'put', 'e', 't', 'customer', 'cus_1', '--fields', '[1]'], 'twins records put', /^--fields must be a JSON object$/],
    [['records', 'delete', 'e', 't'], 'twins records delete', /^missing argument RESOURCE/],
    [['advance'], 'twins advance', /^missing argument TWIN_ID/],
    [['advance', 't', '--at', 'yesterday'], 'twins advance', /^--at must be an ISO 8601 date-time \(got 'yesterday'\)$/],
    [['twin'], 'twins twin', /^missing argument SLUG/],
    [['twin', 'paypal'], 'twins twin', new RegExp(`^unknown twin 'paypal' \\(twins: ${TWIN_SLUGS.join(', ')}\\)$`)],
    [['twin', 'stripe', '--port', '70000'], 'twins twin', /^--port must be a whole number from 0 to 65535 \(got '70000'\)$/],
    [['twin', 'credential'], 'twins twin credential', /^missing argument TWIN_ID/],
    [['twin', 'get'], 'twins twin get', /^missing argument TWIN_ID/],
    [['token'], 'twins token', /^missing required option --email EMAIL/],
    [['token', '--email', 'a@b.c', '--org', 'o'], 'twins token', /^missing required option --role ROLE/],
    [['token', '--email', 'a@b.c', '--org', 'o', '--role', 'owner'], 'twins token', /^--role must be one of admin, member \(got 'owner'\)$/],
    [['token', '--email', 'a@b.c', '--org', 'o', '--role', 'admin', '--ttl', '1.5'], 'twins token', /^--ttl must be a whole number/],
    [['serve', '--port', 'abc'], 'twins serve', /^--port must be a whole number from 0 to 65535 \(got 'abc'\)$/],
    [['serve', 'now'], 'twins serve', /^unexpected argument 'now'$/],
    [['seeds', 'create', '--name', 'n', '--twin', 'stripe'], 'twins seeds create', /^missing required option --prompt TEXT/],
    [['seeds', 'get'], 'twins seeds get', /^missing argument SEED_ID/],
    [['seeds', 'delete'], 'twins seeds delete', /^missing argument SEED_ID/],
    [['tests', 'create', '--name', 'n'], 'twins tests create', /^missing required option --twin SLUG/],
    [['tests', 'create', '--name', 'n', '--twin', 'stripe'], 'twins tests create', /^give exactly one of --outcome TEXT or --assertions FILE$/],
    [['tests', 'run', 'x'], 'twins tests run', /^missing required option --env ENV_ID/],
    [['tests', 'get'], 'twins tests get', /^missing argument TEST_ID/],
    [['tests', 'delete'], 'twins tests delete', /^missing argument TEST_ID/],
    [['catalog', 'extra'], 'twins catalog', /^unexpected argument 'extra'$/],
    [['completion'], 'twins completion', /^missing argument SHELL/],
    [['completion', 'fish'], 'twins completion', /^SHELL must be bash or zsh \(got 'fish'\)$/],
    [['help', 'bogus'], 'twins help', /^unknown command 'bogus'$/],
    [['help', 'env', 'bogus'], 'twins help', /^unknown command 'env bogus'$/],
    [['version', 'x'], 'twins version', /^unexpected argument 'x'$/],
    [['mcp', '--url', 'http://127.0.0.1:9', '--token', ''], 'twins mcp', /^--token is empty$/],
  ];
  for (const [argv, command, message] of cases) {
    const r = await cli(argv, { env });
    t.equal(r.code, 2, `twins ${argv.join(' ')} exits 2: ${r.stderr}`);
    t.equal(r.stdout, '', `twins ${argv.join(' ')} prints nothing on stdout`);
    const [first, second] = r.stderr.split('\n');
    t.ok(first!.startsWith(`${command}: `), `${first} names ${command}`);
    t.match(first!.slice(command.length + 2), message, `twins ${argv.join(' ')}`);
    t.equal(second, `Run '${command} --help' for usage.`);
  }
  // From the environment: the variable is named.
  const fromEnv = await cli(['serve'], { env: { PORT: 'abc' } });
  t.equal(fromEnv.code, 2);
  t.match(fromEnv.stderr, /^twins serve: PORT must be a whole number from 0 to 65535 \(got 'abc'\)$/m);
  // No credential for a command over the API.
  const anonymous = await cli(['catalog'], { env: {} });
  t.equal(anonymous.code, 2);
  t.match(anonymous.stderr, /^twins catalog: missing credential: pass --token, or set TWINS_TOKEN or TWINS_API_KEY/);
});

t.test('completion', async (t) => {
  for (const shell of ['bash', 'zsh']) {
    const script = await cli(['completion', shell]);
    t.equal(script.code, 0);
    t.match(script.stdout, /twins __complete/);
  }
  const complete = async (...words: string[]) => (await cli(['__complete', ...words])).stdout.trim().split('\n');
  t.same(await complete('en'), [
    'serve',
    'token',
    'console',
    'ca',
    'twin',
    'env',
    'logs',
    'records',
    'advance',
    'catalog',
    'seeds',
    'snapshots',
    'tests',
    'mcp',
    'completion',
    'help',
    'version',
  ]);
  t.same(await complete('env', ''), ['create', 'list', 'get', 'wait', 'reset', 'delete', 'snapshot', 'fork', 'diff', 'export', 'replay', 'faults']);
  t.ok((await complete('env', 'create', '--')).includes('--twin'));
  t.same(await complete('env', 'create', '--twin', ''), [...TWIN_SLUGS]);
  t.same(await complete('twin', ''), ['credential', 'get', ...TWIN_SLUGS]);
  t.same(await complete('token', '--role', ''), ['admin', 'member']);
  t.same(await complete('token', '--data', ''), [':files']);
  t.same(await complete('completion', ''), ['bash', 'zsh']);
  t.same(await complete('help', ''), (await complete('')).filter(Boolean));
});
