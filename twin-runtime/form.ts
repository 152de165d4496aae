// Bracket-notation form decoding (`a[b][0][c]=1&e[]=x`), the way Stripe and Slack clients encode
// nested parameters. Numeric and empty brackets build arrays; other brackets build objects.

type Tree = Record<string, unknown>;

function splitKey(key: string): string[] {
  const first = key.indexOf('[');
  if (first <= 0) return [key];
  const parts = [key.slice(0, first)];
  const re = /\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  re.lastIndex = first;
  while ((m = re.exec(key)) !== null) parts.push(m[1]!);
  return parts;
}

function assign(root: Tree, parts: string[], value: string): void {
  let node: any = root;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    const nextPart = parts[i + 1];
    const wantsArray = nextPart !== undefined && (nextPart === '' || /^\d+$/.test(nextPart));
    if (Array.isArray(node)) {
      if (part === '') {
        if (last) node.push(value);
        else {
          const child = wantsArray ? [] : {};
          node.push(child);
          node = child;
        }
        continue;
      }
      const idx = Number(part);
      if (last) node[idx] = value;
      else {
        node[idx] ??= wantsArray ? [] : {};
        node = node[idx];
      }
      continue;
    }
    if (last) {
      node[part] = value;
    } else {
      if (node[part] === undefined || typeof node[part] !== 'object') node[part] = wantsArray ? [] : {};
      node = node[part];
    }
  }
}

/** Decode `application/x-www-form-urlencoded` text into a nested tree. */
export function parseBracketForm(text: string): Tree {
  const root: Tree = {};
  if (!text) return root;
  for (const [key, value] of new URLSearchParams(text)) assign(root, splitKey(key), value);
  // Sparse arrays from indices (`items[0]`, `items[2]`) are compacted, as Stripe treats them.
  return compact(root) as Tree;
}

function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
  if (v && typeof v === 'object') {
    const out: Tree = {};
    for (const [k, x] of Object.entries(v)) out[k] = compact(x);
    return out;
  }
  return v;
}
