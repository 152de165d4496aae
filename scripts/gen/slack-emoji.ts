// The emoji names Slack knows, pinned as data: Slack's standard emoji are iamcal's emoji-data
// (the `emoji-datasource` package), each under every one of its `short_names`. Never edited by hand:
//
//   npm pack emoji-datasource@16.0.0 && tar xzf emoji-datasource-16.0.0.tgz package/emoji.json package/package.json
//   node --import=tsx scripts/gen/slack-emoji.ts package
//
// → twins/slack/vocabulary/emoji-names.json

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../../twins/slack/vocabulary/emoji-names.json', import.meta.url));

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: scripts/gen/slack-emoji.ts <extracted emoji-datasource package dir>');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
const raw = readFileSync(join(dir, 'emoji.json'));
const emoji = JSON.parse(raw.toString('utf8')) as { short_names: string[] }[];
const names = [...new Set(emoji.flatMap((e) => e.short_names))].sort();
const out = {
  source: { package: pkg.name, version: pkg.version, file: 'emoji.json', sha256: createHash('sha256').update(raw).digest('hex') },
  names,
};
writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${names.length} emoji names from ${pkg.name}@${pkg.version} → ${OUT}`);
