// index.d.ts is written by hand: it must declare every method and property of Client, and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '../index.js';

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
