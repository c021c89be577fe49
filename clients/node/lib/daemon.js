// Starting and stopping milieud processes, for the conformance runner and the tests.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILT = fileURLToPath(new URL('../../../.build/debug/milieud', import.meta.url));

/** The milieud binary: `$MILIEUD`, else the package's debug build if it exists, else null. */
export function findMilieud(env = process.env) {
  if (env.MILIEUD) return env.MILIEUD;
  return existsSync(BUILT) ? BUILT : null;
}

/**
 * A milieud process listening on a socket in a fresh temporary directory.
 * Start it with `Daemon.start`; `stop` ends it and removes the directory.
 */
export class Daemon {
  #milieud;
  #args;
  #process = null;
  #exited = null;
  #stderr = '';

  constructor(milieud, args, directory) {
    this.#milieud = milieud;
    this.#args = args;
    this.directory = directory;
    this.socketPath = path.join(directory, 'milieu.sock');
  }

  /**
   * Starts milieud and resolves once its socket accepts connections.
   * @param {{milieud?: string, args?: string[]}} [options] `args` come after `--socket PATH`
   */
  static async start({ milieud = findMilieud(), args = [] } = {}) {
    if (!milieud) throw new Error('No milieud binary: set MILIEUD');
    const daemon = new Daemon(milieud, args, mkdtempSync(path.join(os.tmpdir(), 'milieu-node-')));
    try {
      await daemon.#launch();
    } catch (error) {
      rmSync(daemon.directory, { recursive: true, force: true });
      throw error;
    }
    return daemon;
  }

  /** What the daemon wrote to stderr (its log). */
  get log() {
    return this.#stderr;
  }

  /** Null while the daemon runs; else how it ended, `status N` or `signal NAME`. */
  get exitStatus() {
    const child = this.#process;
    if (child === null || (child.exitCode === null && child.signalCode === null)) return null;
    return child.signalCode !== null ? `signal ${child.signalCode}` : `status ${child.exitCode}`;
  }

  /** The running process's id. */
  get pid() {
    return this.#process?.pid;
  }

  /** Stops the daemon with SIGTERM and starts a new one on the same socket, with `args` from then on (default: the same). */
  async restart(args = this.#args) {
    await this.#terminate();
    this.#args = args;
    await this.#launch();
  }

  /** Stops the daemon (SIGTERM, SIGKILL after 5 s) and removes its directory; resolves to its exit code and signal. */
  async stop() {
    const exit = await this.#terminate();
    rmSync(this.directory, { recursive: true, force: true });
    return exit;
  }

  async #launch() {
    // A test daemon keeps nothing across restarts unless it is given a data directory.
    const persistence = this.#args.includes('--data-dir') ? [] : ['--ephemeral'];
    const child = spawn(this.#milieud, ['--socket', this.socketPath, ...persistence, ...this.#args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.#process = child;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      this.#stderr += text;
    });
    this.#exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const started = Date.now();
    while (!(await accepts(this.socketPath))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`milieud exited at start: ${this.#stderr}`);
      if (Date.now() - started > 10000) throw new Error(`milieud did not listen on ${this.socketPath} within 10 s: ${this.#stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async #terminate() {
    const child = this.#process;
    if (child === null) return { code: null, signal: null };
    this.#process = null;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000); // a daemon that ignores SIGTERM
    const exit = await this.#exited;
    clearTimeout(killer);
    return exit;
  }
}

/** Whether something accepts connections on the socket (the probe connection is closed at once). */
function accepts(socketPath) {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
