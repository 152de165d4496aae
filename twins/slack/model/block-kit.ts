// Block Kit as Slack checks it before it posts a message or opens a view: each block's type, its
// required fields and their limits (Slack's Block Kit reference), text objects, the elements of
// actions and context blocks, unique block ids. Every problem is reported at once, each with the
// JSON pointer of what is wrong, worded as Slack words them ("must be less than 3001 characters
// [json-pointer:/blocks/0/text/text]"); a message answers `invalid_blocks` with them in `errors`
// and `response_metadata.messages`.

/** Where the blocks are shown: messages take no input blocks and at most 50 blocks. */
export type BlockSurface = 'message' | 'view';

export const MAX_MESSAGE_BLOCKS = 50;
export const MAX_VIEW_BLOCKS = 100;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Interactive elements (buttons, menus, pickers, inputs) by type. */
const INTERACTIVE = new Set([
  'button',
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'timepicker',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
  'overflow',
  'radio_buttons',
  'plain_text_input',
  'number_input',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
  'file_input',
  'workflow_button',
  'image',
]);

class Problems {
  readonly list: string[] = [];
  add(message: string, pointer: string): void {
    // A runaway payload gets a bounded answer.
    if (this.list.length < 50) this.list.push(`${message} [json-pointer:${pointer}]`);
  }
}

function checkString(p: Problems, v: unknown, pointer: string, max: number, min = 1): boolean {
  if (typeof v !== 'string') {
    p.add('must provide a string', pointer);
    return false;
  }
  if (v.length < min) p.add(`must be more than ${min - 1} characters`, pointer);
  else if (v.length > max) p.add(`must be less than ${max + 1} characters`, pointer);
  return true;
}

/** A text object: `{type: plain_text | mrkdwn, text}` (`only` narrows the type). */
function checkText(p: Problems, v: unknown, pointer: string, max: number, only?: 'plain_text'): void {
  if (!isObject(v)) {
    p.add('must provide an object', pointer);
    return;
  }
  const allowed = only ? [only] : ['plain_text', 'mrkdwn'];
  if (typeof v.type !== 'string' || !allowed.includes(v.type)) {
    p.add(only ? `must be a ${only} text object` : 'failed to match all allowed schemas', pointer);
    return;
  }
  const before = p.list.length;
  checkString(p, v.text, `${pointer}/text`, max);
  if (p.list.length > before) p.list.splice(before, 0, `failed to match all allowed schemas [json-pointer:${pointer}]`);
  if (v.emoji !== undefined && v.type !== 'plain_text') p.add('emoji is only allowed on plain_text', `${pointer}/emoji`);
}

function checkOptionalString(p: Problems, v: unknown, pointer: string, max: number): void {
  if (v !== undefined) checkString(p, v, pointer, max);
}

function checkElement(p: Problems, v: unknown, pointer: string): void {
  if (!isObject(v) || typeof v.type !== 'string') {
    p.add('missing required field: type', pointer);
    return;
  }
  if (!INTERACTIVE.has(v.type)) {
    p.add(`unsupported type: ${v.type}`, `${pointer}/type`);
    return;
  }
  checkOptionalString(p, v.action_id, `${pointer}/action_id`, 255);
  switch (v.type) {
    case 'button':
      checkText(p, v.text, `${pointer}/text`, 75, 'plain_text');
      checkOptionalString(p, v.url, `${pointer}/url`, 3000);
      checkOptionalString(p, v.value, `${pointer}/value`, 2000);
      if (v.style !== undefined && v.style !== 'primary' && v.style !== 'danger') p.add('must be one of primary, danger', `${pointer}/style`);
      break;
    case 'image':
      checkImageSource(p, v, pointer);
      break;
    case 'static_select':
    case 'multi_static_select':
    case 'overflow':
    case 'checkboxes':
    case 'radio_buttons': {
      const options = v.options;
      const groups = v.option_groups;
      if (options === undefined && groups === undefined) p.add('must define either `options` or `option_groups`', pointer);
      if (options !== undefined) checkOptions(p, options, `${pointer}/options`, v.type === 'overflow' ? 5 : 100);
      break;
    }
    default:
      break;
  }
}

function checkOptions(p: Problems, v: unknown, pointer: string, max: number): void {
  if (!Array.isArray(v) || v.length === 0) {
    p.add('must provide a non-empty array', pointer);
    return;
  }
  if (v.length > max) p.add(`must contain at most ${max} items`, pointer);
  v.forEach((o, i) => {
    if (!isObject(o)) {
      p.add('must provide an object', `${pointer}/${i}`);
      return;
    }
    checkText(p, o.text, `${pointer}/${i}/text`, 75);
    checkString(p, o.value, `${pointer}/${i}/value`, 150);
  });
}

function checkImageSource(p: Problems, v: Json, pointer: string): void {
  if (v.image_url === undefined && v.slack_file === undefined) p.add('must define either `image_url` or `slack_file`', pointer);
  checkOptionalString(p, v.image_url, `${pointer}/image_url`, 3000);
  if (v.alt_text === undefined) p.add('missing required field: alt_text', pointer);
  else checkString(p, v.alt_text, `${pointer}/alt_text`, 2000);
}

function checkBlock(p: Problems, b: unknown, pointer: string, surface: BlockSurface): void {
  if (!isObject(b)) {
    p.add('must provide an object', pointer);
    return;
  }
  if (typeof b.type !== 'string') {
    p.add('missing required field: type', pointer);
    return;
  }
  checkOptionalString(p, b.block_id, `${pointer}/block_id`, 255);
  switch (b.type) {
    case 'section':
      if (b.text === undefined && b.fields === undefined) p.add('must define either `text` or `fields`', pointer);
      if (b.text !== undefined) checkText(p, b.text, `${pointer}/text`, 3000);
      if (b.fields !== undefined) {
        if (!Array.isArray(b.fields) || b.fields.length === 0) p.add('must provide a non-empty array', `${pointer}/fields`);
        else {
          if (b.fields.length > 10) p.add('must contain at most 10 items', `${pointer}/fields`);
          for (const [i, f] of b.fields.entries()) checkText(p, f, `${pointer}/fields/${i}`, 2000);
        }
      }
      if (b.accessory !== undefined) checkElement(p, b.accessory, `${pointer}/accessory`);
      break;
    case 'header':
      checkText(p, b.text, `${pointer}/text`, 150, 'plain_text');
      break;
    case 'divider':
      break;
    case 'image':
      checkImageSource(p, b, pointer);
      if (b.title !== undefined) checkText(p, b.title, `${pointer}/title`, 2000, 'plain_text');
      break;
    case 'context':
      if (!Array.isArray(b.elements) || b.elements.length === 0) p.add('must provide a non-empty array', `${pointer}/elements`);
      else {
        if (b.elements.length > 10) p.add('must contain at most 10 items', `${pointer}/elements`);
        b.elements.forEach((e, i) => {
          if (isObject(e) && e.type === 'image') checkImageSource(p, e, `${pointer}/elements/${i}`);
          else checkText(p, e, `${pointer}/elements/${i}`, 3000);
        });
      }
      break;
    case 'actions':
      if (!Array.isArray(b.elements) || b.elements.length === 0) p.add('must provide a non-empty array', `${pointer}/elements`);
      else {
        if (b.elements.length > 25) p.add('must contain at most 25 items', `${pointer}/elements`);
        for (const [i, e] of b.elements.entries()) checkElement(p, e, `${pointer}/elements/${i}`);
      }
      break;
    case 'input':
      if (surface === 'message') {
        p.add('input blocks are not supported in messages', `${pointer}/type`);
        break;
      }
      checkText(p, b.label, `${pointer}/label`, 2000, 'plain_text');
      checkElement(p, b.element, `${pointer}/element`);
      break;
    case 'markdown':
      checkString(p, b.text, `${pointer}/text`, 12_000);
      break;
    case 'rich_text':
      if (!Array.isArray(b.elements)) p.add('must provide an array', `${pointer}/elements`);
      break;
    case 'file':
      checkString(p, b.external_id, `${pointer}/external_id`, 255);
      if (b.source !== 'remote') p.add('must be remote', `${pointer}/source`);
      break;
    case 'video':
      for (const f of ['alt_text', 'video_url', 'thumbnail_url']) checkString(p, b[f], `${pointer}/${f}`, 3000);
      checkText(p, b.title, `${pointer}/title`, 200, 'plain_text');
      break;
    default:
      p.add(`unsupported type: ${b.type}`, `${pointer}/type`);
  }
}

/** Every problem of `blocks` (empty when they are valid), each naming its JSON pointer under `pointer`. */
export function blockKitProblems(blocks: unknown, pointer: string, surface: BlockSurface): string[] {
  const p = new Problems();
  if (!Array.isArray(blocks)) {
    p.add('must provide an array', pointer);
    return p.list;
  }
  const max = surface === 'message' ? MAX_MESSAGE_BLOCKS : MAX_VIEW_BLOCKS;
  if (blocks.length > max) p.add(`must contain at most ${max} items`, pointer);
  const ids = new Set<string>();
  blocks.slice(0, max).forEach((b, i) => {
    checkBlock(p, b, `${pointer}/${i}`, surface);
    const id = isObject(b) ? b.block_id : undefined;
    if (typeof id === 'string') {
      if (ids.has(id)) p.add(`duplicate block_id: ${id}`, `${pointer}/${i}/block_id`);
      ids.add(id);
    }
  });
  return p.list;
}
