// Where the daemon's socket is: the same resolution as milieud (SPEC §1.1).
import path from 'node:path';

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
