// Shell completion. The scripts are small and ask `twins __complete WORDS…` for the candidates, so
// bash and zsh complete from the same command table (spec.ts) the parser and the help use.

import { TWIN_SLUGS } from '../../twin-runtime/registry.js';
import { optionsOf, resolveCommand, ROOT, type CommandSpec } from './spec.js';
import type { Handler } from './spec.js';

/** Printed alone when the shell should complete file names. */
export const FILES = ':files';

const BASH = `# twins completion for bash: source <(twins completion bash)
_twins() {
  local cur=\${COMP_WORDS[COMP_CWORD]} IFS=$'\\n' out
  out=$(twins __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [[ $out == "${FILES}" ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$out" -- "$cur"))
  fi
}
complete -o default -F _twins twins
`;

const ZSH = `#compdef twins
# twins completion for zsh: twins completion zsh > "\${fpath[1]}/_twins" (or: source <(twins completion zsh))
_twins() {
  local -a candidates
  candidates=("\${(@f)$(twins __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${candidates[1]}" == "${FILES}" ]]; then
    _files
  else
    compadd -- \${candidates:#}
  fi
}
if [[ "\${funcstack[1]}" == _twins ]]; then _twins "$@"; else compdef _twins twins; fi
`;

export const SCRIPTS: Record<string, string> = { bash: BASH, zsh: ZSH };

export const completion: Handler = async (ctx) => {
  const shell = ctx.args.SHELL!;
  const script = SCRIPTS[shell];
  if (!script) throw ctx.usage(`SHELL must be bash or zsh (got '${shell}')`);
  ctx.io.stdout(script);
};

/** Candidates for the last word, given the words before it. */
export function complete(words: string[]): string[] {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const { path, rest } = resolveCommand(before);
  const cmd: CommandSpec = path.at(-1)!;
  const options = optionsOf(cmd);
  const previous = before.at(-1);
  const takesValue = previous?.startsWith('--') ? options.find((o) => `--${o.name}` === previous && o.type === 'string') : undefined;
  if (takesValue) {
    if (takesValue.choices) return [...takesValue.choices];
    if (takesValue.complete === 'slugs') return [...TWIN_SLUGS];
    if (takesValue.complete === 'files') return [FILES];
    return [];
  }
  if (current.startsWith('-')) return options.map((o) => `--${o.name}`);
  if (cmd === ROOT || (cmd.subcommands && rest.length === 0)) {
    const names = (cmd.subcommands ?? []).map((c) => c.name);
    if (cmd.name === 'twin') return [...names, ...TWIN_SLUGS];
    if (cmd.name === 'help') return (ROOT.subcommands ?? []).map((c) => c.name);
    return names;
  }
  const positional = rest.filter(
    (w, i) => !w.startsWith('-') && !(rest[i - 1]?.startsWith('--') && options.find((o) => `--${o.name}` === rest[i - 1])?.type === 'string'),
  );
  const arg = cmd.args?.[positional.length];
  if (arg?.complete === 'slugs') return [...TWIN_SLUGS];
  if (arg?.complete === 'commands') return (ROOT.subcommands ?? []).map((c) => c.name);
  if (cmd.name === 'completion') return Object.keys(SCRIPTS);
  return [];
}
