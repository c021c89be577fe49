// SPEC §1.2's rule for trusting a socket path, held to protocol/socket-trust.json: the cases
// milieud's (Swift) and the Python client's implementations are held to as well (issue #26, item 14).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { judge } from '../lib/trust.js';

const table = JSON.parse(readFileSync(new URL('../../../protocol/socket-trust.json', import.meta.url), 'utf8'));

test('the table is read', () => {
  assert.ok(table.cases.length >= 25);
});

for (const item of table.cases) {
  test(item.name, () => {
    const files = { ...table.base, ...item.files };
    const entry = (file) => {
      const found = files[file];
      if (found === undefined) return null;
      const kind = ['directory', 'symlink', 'socket'].includes(found.type) ? found.type : 'other';
      return { kind, uid: table.uids[found.owner], mode: parseInt(found.mode ?? '0777', 8) };
    };
    const target = (file) => files[file]?.target ?? null;
    const verdict = judge(item.path, item.purpose, table.me, item.cwd ?? '/', entry, target);
    const expected = item.expect.trusted
      ? { resolved: item.expect.resolved }
      : { reason: item.expect.reason, path: item.expect.at, why: item.expect.message };
    assert.deepEqual(verdict, expected);
  });
}
