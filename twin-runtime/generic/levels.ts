// How sure the generic engine is of each operation (architecture: fidelity levels), decided once
// from the operation table, the adapter's provider knowledge and which templates hand-written
// routes answer:
//   unsupported  what the engine cannot simulate: answers computed by the provider (previews,
//                renderings, searches, dispatches: `answer`), records nothing the twin simulates
//                creates (always empty, always 404) or nothing reads back (an action: a merge, an
//                update-branch), creates whose key or URL the provider makes and the twin cannot
//                (GitHub SHAs), verbs that move no `status` the spec names, a new record whose
//                initial state the spec does not tell, and whatever the adapter knows the spec does
//                not say (money moves, tokens issued);
//   inferred     stored records plus what the spec makes safe: the parents the path names exist,
//                the objects the input names exist, a verb moves `status` to the enum value of its
//                name, a new record starts in the enum's initial state;
//   stored       plain create/read/update/delete/list of records, nothing more.
// Anything the engine is unsure about is `stored` or `unsupported`, never guessed.

import { paramName } from './classify.js';
import { isNullable, typeOf, type Schema, type SchemaResolver } from './schema.js';
import type { Action, GenericAdapter, GenericOperation, MadeField } from './types.js';

/** Verbs whose `status` value is not the verb's own stem (`finalize` leaves an invoice `open`). */
const STATUS_OF_VERB: Record<string, string[]> = {
  deactivate: ['inactive', 'deactivated'],
  unarchive: ['active'],
  reactivate: ['active'],
  approve: ['approved'],
  void: ['void', 'voided'],
  finalize: ['finalized', 'open'],
  expire: ['expired'],
  reject: ['rejected'],
  close: ['closed'],
  reopen: ['open'],
  mark_uncollectible: ['uncollectible'],
  cancel: ['canceled', 'cancelled'],
  archive: ['archived'],
  activate: ['active'],
  accept: ['accepted'],
  verify: ['verified'],
  submit: ['submitted'],
  release: ['released'],
  resume: ['active'],
  pause: ['paused'],
};

/** Verbs that switch a boolean `active` (Stripe's products, prices, plans, features). */
const ACTIVE_OF_VERB: Record<string, boolean> = { activate: true, reactivate: true, unarchive: true, deactivate: false, archive: false };

/** Where an action verb leaves `status`: the enum value of the same stem (cancel → canceled), or undefined. */
export function statusAfter(verb: string, statuses: readonly string[]): string | undefined {
  for (const s of STATUS_OF_VERB[verb] ?? []) if (statuses.includes(s)) return s;
  const stem = verb.replace(/e$/, '');
  if (stem.length < 3) return undefined;
  return statuses.find((s) => s.startsWith(stem));
}

/** The state a new record starts in, most specific first; a value past these is never a birth state. */
const INITIAL_STATES = [
  'draft',
  'pending',
  'requires_input',
  'requires_payment_method',
  'requires_confirmation',
  'incomplete',
  'not_started',
  'queued',
  'scheduled',
  'created',
  'new',
  'open',
  'unverified',
  'inactive',
  'active',
  'enabled',
  'available',
  'in_progress',
  'processing',
];

/** States a record reaches at the end of a lifecycle: never the state of a new record. */
export const TERMINAL_STATES = new Set([
  'accepted',
  'archived',
  'canceled',
  'cancelled',
  'closed',
  'complete',
  'completed',
  'consumed',
  'declined',
  'deleted',
  'disabled',
  'done',
  'expired',
  'failed',
  'lost',
  'paid',
  'refunded',
  'rejected',
  'resolved',
  'reversed',
  'succeeded',
  'uncollectible',
  'void',
  'voided',
  'won',
]);

/** The state a new record starts in: the enum's initial value, or undefined when the spec does not tell. */
export function initialStatus(statuses: readonly string[]): string | undefined {
  if (statuses.length === 1) return TERMINAL_STATES.has(statuses[0]!) ? undefined : statuses[0];
  return INITIAL_STATES.find((s) => statuses.includes(s));
}

/** Fields a record keeps its lifecycle state in (Stripe's `status`, GitHub's `state`). */
export const STATE_FIELDS = ['status', 'state'] as const;

/** Names of fields that are URLs: `url`, `html_url`, `*_url`, or a `uri`/`url` format. */
export function isUrlField(name: string, s: Schema): boolean {
  return name === 'url' || name.endsWith('_url') || s.format === 'uri' || s.format === 'url';
}

/** An operation on a single record a path names with no key (`get-one`, `delete-one`, a keyless check). */
const isSingleRead = (op: GenericOperation) => op.action === 'get-one' || op.action === 'delete-one' || (op.action === 'check' && !op.key);

/** What the engine needs of itself to decide (GenericEngine implements it). */
export interface LevelSource {
  readonly adapter: GenericAdapter;
  readonly resolver: SchemaResolver;
  recordSchema(op: GenericOperation): Schema | undefined;
  /** Top-level body properties and required names of an operation's request. */
  requestBody(op: GenericOperation): { properties: Record<string, Schema>; required: Set<string> };
}

const WRITES: ReadonlySet<Action> = new Set<Action>(['create', 'upsert', 'set-one']);
const READS: ReadonlySet<Action> = new Set<Action>(['retrieve', 'list', 'get-one', 'search', 'check']);

/** Enum string values of a record field (`status`), or []. */
export function enumOf(resolver: SchemaResolver, record: Schema | undefined, field: string): string[] {
  const prop = record ? resolver.objectSchema(record)?.properties?.[field] : undefined;
  if (!prop) return [];
  const flat = resolver.flatten(prop);
  const values = Array.isArray(flat.enum) ? flat.enum : (flat.anyOf ?? []).flatMap((b: Schema) => resolver.flatten(b).enum ?? []);
  return (values as unknown[]).filter((v): v is string => typeof v === 'string');
}

/**
 * The shape of a template (`/a/{}/b`), for matching operations whose parameter names differ; a
 * suffix after a last parameter (Twilio's `{Sid}.json`) is not part of the shape.
 */
const shape = (template: string) => template.replace(/\{[^}]+\}(\.[A-Za-z]+$)?/g, '{}');

/**
 * Decide every operation's level from the table alone (no schema is read: a twin starts without
 * them). `hand(method, template)` says whether a hand-written route answers that template (its
 * records are the model's, not the engine's). What needs the operation's schemas (a create's key,
 * URLs and initial state, a verb's status) is left `pending` for `decideFromSchemas`, run on the
 * operation's first call or when the coverage asks.
 */
export function decideLevels(src: LevelSource, ops: GenericOperation[], hand: (method: string, template: string) => boolean): void {
  const { adapter } = src;
  const live = ops.filter((op) => !hand(op.entry.method, op.entry.path));
  const written = new Set<string>(adapter.modelKinds ?? []);
  const read = new Set<string>(adapter.modelKinds ?? []);
  // A single record (settings, a protection) exists only once something sets it (a hand-written
  // model keeps its records by id, never as the single record of a path).
  const setOnes = new Set<string>();
  for (const op of live) {
    if (WRITES.has(op.action)) written.add(op.resource);
    if (READS.has(op.action)) read.add(op.resource);
    if (op.action === 'set-one') setOnes.add(op.resource);
  }
  const writers = new Map<string, GenericOperation[]>();
  for (const op of live) {
    if (!WRITES.has(op.action)) continue;
    writers.set(op.resource, [...(writers.get(op.resource) ?? []), op]);
    // The single record of a path is set only by its set-one (`@`).
    if (op.action === 'set-one') writers.set(`${op.resource}@`, [...(writers.get(`${op.resource}@`) ?? []), op]);
  }
  // A record's item read, by template shape: the parent a sub-resource path names.
  const items = new Map<string, GenericOperation>();
  for (const op of live) if (op.action === 'retrieve' && written.has(op.resource)) items.set(shape(op.entry.path), op);

  for (const op of ops) {
    for (const k of ['reason', 'nextStatus', 'nextActive', 'initialStatus', 'parents', 'unchecked', 'pending', 'writers'] as const) delete op[k];
    const reason = structural(op);
    if (reason) {
      op.level = 'unsupported';
      op.reason = reason;
      continue;
    }
    // Parents the path names: checked by the adapter, or by the engine when it keeps them.
    const segs = op.entry.path.split('/');
    for (const param of op.scope) {
      if (adapter.checksParent?.(op, param)) continue;
      const at = segs.findIndex((s) => paramName(s) === param);
      const parent = at === -1 ? undefined : items.get(shape(segs.slice(0, at + 1).join('/')));
      if (parent && parent !== op) (op.parents ??= []).push({ param, op: parent });
      else (op.unchecked ??= []).push(param);
    }
    // Records only generic creates make: they exist only if one of those creates is simulated.
    if (!WRITES.has(op.action) && !adapter.modelKinds?.has(op.resource)) {
      op.writers = (isSingleRead(op) ? writers.get(`${op.resource}@`) : writers.get(op.resource)) ?? [];
    }
    op.level = 'stored';
    op.pending = true;
  }

  function structural(op: GenericOperation): string | undefined {
    const known = adapter.unsupported?.(op);
    if (known) return known;
    if (op.action === 'answer') return op.entry.method === 'GET' || READ_VERB.test(op.entry.path) ? COMPUTED : ACTION;
    // A single record no operation sets (a readme, a search, `releases/latest`): the provider computes it.
    if (isSingleRead(op) && !setOnes.has(op.resource)) return COMPUTED;
    if (!written.has(op.resource)) return NOTHING_CREATES;
    if (!read.has(op.resource)) return ACTION;
    return undefined;
  }
}

/** Finish a `pending` operation's level with what its schemas say (once). */
export function decideFromSchemas(src: LevelSource, op: GenericOperation): void {
  if (!op.pending) return;
  delete op.pending;
  const { adapter, resolver } = src;
  const inferred: string[] = [];
  const record = src.recordSchema(op);
  const unsupported = (reason: string) => {
    op.level = 'unsupported';
    op.reason = reason;
  };
  if (op.writers) {
    for (const w of op.writers) decideFromSchemas(src, w);
    if (!op.writers.some((w) => w.level !== 'unsupported')) {
      unsupported(op.writers.length ? 'The twin does not simulate what creates these records.' : NOTHING_CREATES);
      return;
    }
  }
  const shaped = adapter.shapesRecords?.(op) ?? false;
  if (WRITES.has(op.action) && !shaped && !describes(src, record)) {
    unsupported('The spec the twin has does not describe these records.');
    return;
  }
  if ((op.action === 'create' || op.action === 'upsert' || op.action === 'set-one') && !shaped) {
    const made = madeFields(src, op, record);
    if (made) {
      unsupported(made);
      return;
    }
    for (const field of STATE_FIELDS) {
      const states = enumOf(resolver, record, field);
      if (!states.length || op.action !== 'create') continue;
      const given = src.requestBody(op).required.has(field);
      const start = initialStatus(states);
      if (!start && !given) {
        unsupported(`The spec does not tell which \`${field}\` a new record starts in.`);
        return;
      }
      if (start) {
        op.initialStatus = start;
        inferred.push(`starts \`${field}: ${start}\``);
      }
      break;
    }
  }
  if (op.action === 'act') {
    const verb = op.verb ?? '';
    const next = statusAfter(verb, enumOf(resolver, record, 'status'));
    const props = record ? (resolver.objectSchema(record)?.properties ?? {}) : {};
    const active = verb in ACTIVE_OF_VERB && props.active !== undefined ? ACTIVE_OF_VERB[verb] : undefined;
    if (next === undefined && active === undefined) {
      unsupported(`The twin does not simulate what \`${verb}\` does.`);
      return;
    }
    if (next !== undefined) {
      op.nextStatus = next;
      inferred.push(`moves \`status\` to \`${next}\``);
    }
    if (active !== undefined) {
      op.nextActive = active;
      inferred.push(`sets \`active: ${active}\``);
    }
  }
  const checked = [...op.scope.filter((p) => adapter.checksParent?.(op, p)), ...(op.parents ?? []).map((p) => p.param)];
  if (checked.length)
    inferred.push(`checks the parent${checked.length > 1 ? 's' : ''} ${checked.map((p) => `\`${p}\``).join(', ')} exist${checked.length > 1 ? '' : 's'}`);
  const refs = adapter.referenceFields?.(op) ?? [];
  if (refs.length) inferred.push(`checks ${refs.map((r) => `\`${r.join('.')}\``).join(', ')} name existing objects`);
  // Unsure about a parent: plain keeping, not inference.
  if (op.unchecked?.length) {
    op.level = 'stored';
    op.reason = `Not checked: the parent ${op.unchecked.map((p) => `\`${p}\``).join(', ')}.`;
    return;
  }
  op.level = inferred.length ? 'inferred' : 'stored';
  if (inferred.length) op.reason = `${capital(inferred.join('; '))}.`;
}

/** What a field of a new record is, when it is something the provider makes (its key, a URL…). */
export function madeField(name: string, s: Schema, required: boolean, keyField: string | undefined): MadeField | undefined {
  if (name === keyField) return 'key';
  if (!required || typeOf(s) !== 'string' || isNullable(s) || s.default !== undefined || s.enum) return undefined;
  if (name === 'id') return 'key';
  if (isUrlField(name, s)) return 'url';
  if (name === 'secret' || name.endsWith('_secret')) return 'secret';
  if (name === 'sha' || name.endsWith('_sha')) return 'hash';
  return undefined;
}

/** Whether the adapter makes a field of a new record (keys by default, nothing else). */
export function adapterMakes(adapter: GenericAdapter, op: GenericOperation, field: string, kind: MadeField, schema: Schema | undefined): boolean {
  return adapter.makes ? adapter.makes(op, field, kind, schema) : kind === 'key';
}

/** Whether a record schema describes a record (not nothing, nor only the provider's envelope). */
function describes(src: LevelSource, record: Schema | undefined): boolean {
  if (!record) return false;
  const envelope = src.adapter.envelopeFields;
  if (!envelope) return true;
  const props = Object.keys(src.resolver.objectSchema(record)?.properties ?? {});
  return props.some((k) => !envelope.has(k));
}

/** Why a new record's key, a required URL, secret or hash cannot be made, or undefined. */
function madeFields(src: LevelSource, op: GenericOperation, record: Schema | undefined): string | undefined {
  const { adapter, resolver } = src;
  const object = record ? resolver.objectSchema(record) : undefined;
  const props: Record<string, Schema> = object?.properties ?? {};
  const required = new Set<string>(object?.required ?? []);
  const input = src.requestBody(op);
  const keyField = op.action === 'create' ? (op.keyField ?? 'id') : undefined;
  const named = new Set([...(op.keyParams ?? []), ...(op.key ? [op.key] : []), ...op.scope]);
  // Input names as the adapter reads them may differ in case and underscores (Twilio's `PhoneNumber` is `phone_number`).
  const given = new Set(Object.keys(input.properties).map(loose));
  const fields: [string, Schema | undefined][] = Object.entries(props).map(([k, v]) => [k, resolver.flatten(v)]);
  // A key named by a field the record schema does not carry.
  if (keyField && !props[keyField]) fields.push([keyField, undefined]);
  for (const [name, s] of fields) {
    const kind = madeField(name, s ?? {}, required.has(name), keyField);
    // Given by the caller (always, or per call: then checked on the answer), or named by the path.
    if (!kind || given.has(loose(name)) || named.has(name)) continue;
    if (kind === 'key' && op.action !== 'create') continue;
    if (!adapterMakes(adapter, op, name, kind, s)) {
      return `The provider makes a new record's \`${name}\`${kind === 'url' ? ' (a page of its own)' : ''}; the twin cannot.`;
    }
  }
  return undefined;
}

/** A method named as a read (Slack's `team.billing.info`, `apps.manifest.export`). */
const READ_VERB =
  /[./](info|list\w*|get\w*|lookup|export|test|validate|search\w*|find\w*|preview\w*|identity|userInfo|teamInfo|accessLogs|billableInfo|integrationLogs)$/;
const ACTION = 'It is an action whose effect the twin does not simulate.';
const COMPUTED = 'Its answer is computed by the provider from state the twin does not keep.';
const NOTHING_CREATES = 'Nothing the twin simulates creates these records, so it cannot answer for them.';

/** An input name as adapters compare them: case and underscores ignored (Twilio's `PhoneNumber` is `phone_number`). */
export const loose = (name: string) => name.replace(/_/g, '').toLowerCase();

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
