// Whether a socket is our own daemon's: checked before a byte is sent (SPEC §1.2).
//
// The rule is SPEC §1.2's, the one milieud applies before it listens and the Swift and Python
// clients before they connect (protocol/socket-trust.json holds the cases all of them are
// tested against): resolving the path one component at a time from `/` (symbolic links
// followed, at most 40), every directory on the way and every link followed belongs to this
// user or root, no directory on the way is writable by group or others unless it is sticky,
// and the socket file belongs to this user. Node has no SO_PEERCRED, so the socket file's
// owner stands in for the peer's credentials: it is checked before connecting and again once
// connected, and must be the same file both times (device and inode).
import { lstatSync, readlinkSync } from 'node:fs';
import { ConnectionLost } from './errors.js';

export const FIX = 'use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)';
export const MAX_LINKS = 40;

/**
 * SPEC §1.2's rule, without I/O: `{resolved}` when `socketPath` is trusted for `purpose`
 * (`'listen'`: the socket's directory; `'connect'`: the directories and the socket file) by the
 * user `me`, else `{reason, path, why}`.
 *
 * @param {string} socketPath
 * @param {'listen' | 'connect'} purpose
 * @param {number} me
 * @param {string} cwd
 * @param {(path: string) => ({kind: 'directory' | 'symlink' | 'socket' | 'other', uid: number, mode: number} | null)} entry lstat
 * @param {(path: string) => (string | null)} target readlink
 * @returns {{resolved: string} | {reason: string, path: string, why: string}}
 */
export function judge(socketPath, purpose, me, cwd, entry, target) {
  let pending = components(socketPath.startsWith('/') ? socketPath : `${cwd}/${socketPath}`);
  const socketName = purpose === 'listen' && pending.length > 0 ? pending.pop() : null;
  let links = 0;
  let current = '/';
  const root = entry(current);
  if (root === null) return { reason: 'missing', path: current, why: '/ does not exist' };
  const rootRefusal = judgeDirectory(root, current, me);
  if (rootRefusal !== null) return rootRefusal;
  let reachedSocket = false;
  while (pending.length > 0) {
    const name = pending.shift();
    if (name === '..') {
      current = parent(current);
      reachedSocket = false;
      continue;
    }
    const candidate = current === '/' ? `/${name}` : `${current}/${name}`;
    const found = entry(candidate);
    if (found === null) return { reason: 'missing', path: candidate, why: `${candidate} does not exist` };
    if (found.kind === 'symlink') {
      if (found.uid !== me && found.uid !== 0) {
        return {
          reason: 'linkOwner', path: candidate,
          why: `the symbolic link ${candidate} belongs to uid ${found.uid}, not to you (uid ${me}) or root, so that user could point it elsewhere`,
        };
      }
      links += 1;
      if (links > MAX_LINKS) return { reason: 'loop', path: candidate, why: `more than ${MAX_LINKS} symbolic links lead to ${candidate}` };
      const linkTarget = target(candidate);
      if (linkTarget === null) return { reason: 'missing', path: candidate, why: `${candidate} does not exist` };
      if (linkTarget.startsWith('/')) current = '/';
      pending = components(linkTarget).concat(pending);
      continue;
    }
    if (pending.length === 0 && purpose === 'connect') {
      if (found.kind !== 'socket') return { reason: 'notSocket', path: candidate, why: `${candidate} is not a socket` };
      if (found.uid !== me) {
        return {
          reason: 'socketOwner', path: candidate,
          why: `the socket ${candidate} belongs to uid ${found.uid}, not to you (uid ${me}), so another user's process serves it`,
        };
      }
      reachedSocket = true;
    } else {
      if (found.kind !== 'directory') return { reason: 'notDirectory', path: candidate, why: `${candidate} is not a directory` };
      const refusal = judgeDirectory(found, candidate, me);
      if (refusal !== null) return refusal;
    }
    current = candidate;
  }
  if (socketName !== null) return { resolved: current === '/' ? `/${socketName}` : `${current}/${socketName}` };
  if (!reachedSocket) return { reason: 'notSocket', path: current, why: `${current} is not a socket` };
  return { resolved: current };
}

function judgeDirectory(found, directory, me) {
  if (found.uid !== me && found.uid !== 0) {
    return {
      reason: 'owner', path: directory,
      why: `${directory} belongs to uid ${found.uid}, not to you (uid ${me}) or root, so that user could replace the socket`,
    };
  }
  if ((found.mode & 0o022) !== 0 && (found.mode & 0o1000) === 0) {
    const mode = (found.mode & 0o7777).toString(8).padStart(4, '0');
    return {
      reason: 'writable', path: directory,
      why: `${directory} has mode ${mode}: others may write to it and it is not sticky, so they could replace the socket`,
    };
  }
  return null;
}

function components(text) {
  return text.split('/').filter((part) => part !== '' && part !== '.');
}

function parent(directory) {
  const slash = directory.lastIndexOf('/');
  return slash <= 0 ? '/' : directory.slice(0, slash);
}

function lstatEntry(file) {
  let stats;
  try {
    stats = lstatSync(file);
  } catch {
    return null;
  }
  const kind = stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : stats.isSocket() ? 'socket' : 'other';
  return { kind, uid: stats.uid, mode: stats.mode & 0o7777 };
}

function readlink(file) {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}

/**
 * Throws `ConnectionLost` unless SPEC §1.2's rule trusts `socketPath` to connect to, as this
 * process's effective uid. Returns the socket file it resolves to (path, device and inode) for
 * `checkSameSocket` once connected, or null when nothing is there (`connect` then fails as not
 * listening).
 *
 * @param {string} socketPath
 * @returns {{path: string, dev: number, ino: number} | null}
 */
export function checkSocketPath(socketPath) {
  const verdict = judge(socketPath, 'connect', process.geteuid(), process.cwd(), lstatEntry, readlink);
  if ('reason' in verdict) {
    if (verdict.reason === 'missing') return null;
    throw new ConnectionLost(`refusing ${socketPath}: ${verdict.why}; ${FIX}`);
  }
  let stats;
  try {
    stats = lstatSync(verdict.resolved);
  } catch {
    return null;
  }
  return { path: verdict.resolved, dev: stats.dev, ino: stats.ino };
}

/**
 * Once connected, before anything is sent: judges the path again, and throws `ConnectionLost`
 * unless it is still trusted and its socket file is the one `checkSocketPath` judged (when one
 * was there then). With the path trusted no other user could have swapped the file in between;
 * this catches a daemon's restart in the meantime, and keeps the guarantee off timing.
 *
 * @param {string} socketPath
 * @param {{path: string, dev: number, ino: number} | null} judged
 */
export function checkSameSocket(socketPath, judged) {
  const now = checkSocketPath(socketPath);
  if (now === null || (judged !== null && (now.path !== judged.path || now.dev !== judged.dev || now.ino !== judged.ino))) {
    throw new ConnectionLost(`refusing ${socketPath}: the socket changed while connecting to it, so it may not be the one judged; try again`);
  }
}
