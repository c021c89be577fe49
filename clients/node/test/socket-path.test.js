import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSocketPath } from '../index.js';

test('MILIEU_SOCKET comes first when set and not empty', () => {
  assert.equal(resolveSocketPath({ MILIEU_SOCKET: '/x/m.sock', XDG_RUNTIME_DIR: '/run/user/7' }, 7), '/x/m.sock');
});

test('then $XDG_RUNTIME_DIR/milieu/milieu.sock', () => {
  assert.equal(resolveSocketPath({ MILIEU_SOCKET: '', XDG_RUNTIME_DIR: '/run/user/7' }, 7), '/run/user/7/milieu/milieu.sock');
});

test('an empty or relative XDG_RUNTIME_DIR is skipped for /tmp/milieu-$UID', () => {
  assert.equal(resolveSocketPath({ XDG_RUNTIME_DIR: '' }, 1000), '/tmp/milieu-1000/milieu.sock');
  assert.equal(resolveSocketPath({ XDG_RUNTIME_DIR: 'run/user/7' }, 1000), '/tmp/milieu-1000/milieu.sock');
  assert.equal(resolveSocketPath({}, 0), '/tmp/milieu-0/milieu.sock');
});

test('the defaults are the process environment and real uid', () => {
  const saved = { MILIEU_SOCKET: process.env.MILIEU_SOCKET, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  try {
    delete process.env.MILIEU_SOCKET;
    delete process.env.XDG_RUNTIME_DIR;
    assert.equal(resolveSocketPath(), `/tmp/milieu-${process.getuid()}/milieu.sock`);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});
