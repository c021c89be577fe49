// Where the daemon's socket is: the same resolution as milieud (SPEC §1.1).
import path from 'node:path';
import { lstatSync, statSync } from 'node:fs';
import { ConnectionLost } from './errors.js';

/**
 * Resolves the default socket path, first match wins:
 * `MILIEU_SOCKET` (set and not empty), then `$XDG_RUNTIME_DIR/milieu/milieu.sock`
 * (set, not empty and absolute), then `/tmp/milieu-$UID/milieu.sock`.
 * An explicit path given to `connect` comes before all of these.
 *
 * @param {Record<string, string | undefined>} [env] the environment to read
 * @param {number} [uid] the real user id
 * @returns {string}
 */
export function resolveSocketPath(env = process.env, uid = process.getuid()) {
  if (env.MILIEU_SOCKET) return env.MILIEU_SOCKET;
  const runtimeDir = env.XDG_RUNTIME_DIR;
  if (runtimeDir && path.isAbsolute(runtimeDir)) return path.join(runtimeDir, 'milieu', 'milieu.sock');
  return `/tmp/milieu-${uid}/milieu.sock`;
}

/**
 * Throws `ConnectionLost` unless the directory of `socketPath` belongs to this
 * process's effective uid and is not group- or world-writable, so that a
 * directory another uid squats (`/tmp/milieu-$UID` above all) is never sent a
 * byte. Node has no `SO_PEERCRED`: the directory is all it checks.
 *
 * @param {string} socketPath
 */
export function checkSocketDirectory(socketPath) {
  const directory = path.dirname(path.resolve(socketPath));
  const me = process.geteuid();
  const fix = 'remove it or set MILIEU_SOCKET';
  let link;
  let stats;
  try {
    link = lstatSync(directory);
    stats = statSync(directory);
  } catch (error) {
    throw new ConnectionLost(`Cannot connect to milieud at ${socketPath}: cannot inspect its directory ${directory}: ${error.message}`, error);
  }
  for (const found of [link, stats]) {
    if (found.uid !== me) {
      throw new ConnectionLost(`refusing ${socketPath}: its directory ${directory} belongs to uid ${found.uid}, not to you (uid ${me}); ${fix}`);
    }
  }
  const mode = stats.mode & 0o7777;
  if (mode & 0o022) {
    throw new ConnectionLost(`refusing ${socketPath}: its directory ${directory} has mode ${mode.toString(8).padStart(4, '0')}, writable by others; chmod go-w it, ${fix}`);
  }
}
