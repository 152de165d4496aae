// The images start as root and run the command as TWINS_USER (`uid:gid`; the control-plane image
// sets 10001:10001) once the data directory is that user's: an engine creates a bind mount's missing
// host folder (`-v $PWD/data:/data`) owned by root, which the unprivileged user could not write.
// Started as anyone but root, or without TWINS_USER (compose keeps root for the engine's socket),
// nothing changes.

import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Hand `path` and everything under it (symbolic links themselves, never their targets) to uid:gid. */
function handOver(path: string, uid: number, gid: number): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (stat.uid !== uid || stat.gid !== gid) lchownSync(path, uid, gid);
  if (stat.isDirectory()) for (const name of readdirSync(path)) handOver(join(path, name), uid, gid);
}

export function runAsConfiguredUser(env: NodeJS.ProcessEnv): void {
  const spec = env.TWINS_USER?.trim();
  if (!spec || process.getuid?.() !== 0) return;
  const m = /^(\d+):(\d+)$/.exec(spec);
  if (!m) throw new Error(`TWINS_USER must be uid:gid (numbers), not '${spec}'.`);
  const uid = Number(m[1]);
  const gid = Number(m[2]);
  if (env.TWINS_DATA_DIR) handOver(env.TWINS_DATA_DIR, uid, gid);
  process.setgroups?.([]);
  process.setgid!(gid);
  process.setuid!(uid);
}
