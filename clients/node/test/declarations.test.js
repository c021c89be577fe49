// index.d.ts is written by hand: it must declare every method and property of Client, and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Client, connect } from '../index.js';
import { daemonFor, needsDaemon } from '../testing/helpers.js';

/** The members index.d.ts declares in `export class <name>`: methods and readonly properties, sorted. */
function declaredMembers(name) {
  const text = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
  const body = text.match(new RegExp(`^export class ${name} [^{]*\\{\\n([\\s\\S]*?)^\\}`, 'm'))?.[1];
  assert.ok(body, `index.d.ts declares class ${name}`);
  const members = [...body.matchAll(/^ {2}(?:readonly )?(\w+)[(:]/gm)].map((match) => match[1]);
  return [...new Set(members)].filter((member) => !['on', 'once'].includes(member)).sort();
}

test('index.d.ts declares exactly the methods and properties of Client', () => {
  const own = Object.getOwnPropertyNames(Client.prototype).filter((member) => member !== 'constructor' && !member.startsWith('#'));
  assert.deepEqual(declaredMembers('Client'), own.sort());
});

// tsc comes from Debian's node-typescript (scripts/setup installs it); npm is not reachable here.
test('under tsc --strict a Notification narrows by method to its own params, and bindings take their forms', () => {
  const files = ['narrowing.ts', 'bindings.ts'].map((name) => new URL(`./types/${name}`, import.meta.url).pathname);
  execFileSync('tsc', ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'es2022',
    '--moduleResolution', 'node', '--lib', 'es2022', ...files], { stdio: 'pipe', encoding: 'utf8' });
});

test('a failed call\'s error carries the stack of the call, and await using closes the client', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await connect({ socketPath: daemon.socketPath });
  const error = await client.get('login.emial').then(() => null, (e) => e);
  assert.equal(error.kind, 'UnknownPath');
  assert.match(error.stack, /declarations\.test\.js/, 'the stack names the line that made the call');
  await client[Symbol.asyncDispose]();
  await assert.rejects(client.get('login.email'), { kind: 'ConnectionLost' });
});
