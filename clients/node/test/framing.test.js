// Newline framing: the decoder alone, then the client against a fake server that splits and coalesces lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineDecoder } from '../lib/framing.js';
import { connect, ConnectionLost, MessageTooLarge, TimeoutError } from '../index.js';
import { fakeServer } from '../testing/fake-server.js';

function decodeAll(chunks, options) {
  const lines = [];
  const decoder = new LineDecoder((line) => lines.push(line), options);
  for (const chunk of chunks) decoder.push(chunk);
  return lines;
}

test('decoder: every split point of a stream yields the same lines, multi-byte characters intact', () => {
  const text = '{"a":"héllo 🌍"}\n\n{"b":[1,2]}\r\n{"c":"末"}\n';
  const bytes = Buffer.from(text);
  const expected = ['{"a":"héllo 🌍"}', '', '{"b":[1,2]}', '{"c":"末"}'];
  for (let first = 0; first <= bytes.length; first++) {
    for (let second = first; second <= bytes.length; second++) {
      const chunks = [bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)];
      assert.deepEqual(decodeAll(chunks), expected, `split at ${first} and ${second}`);
    }
  }
});

test('decoder: byte-by-byte delivery, and an unfinished last line is held back', () => {
  const bytes = Buffer.from('[1]\n[2]\n[3');
  const chunks = [...bytes].map((byte) => Buffer.from([byte]));
  assert.deepEqual(decodeAll(chunks), ['[1]', '[2]']);
});

test('decoder: a 5 MiB line arriving in 64 KiB chunks is one line', () => {
  const line = `"${'x'.repeat(5 * 1024 * 1024)}"`;
  const bytes = Buffer.from(`${line}\n`);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += 65536) chunks.push(bytes.subarray(at, at + 65536));
  const lines = decodeAll(chunks);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].length, line.length);
});

test('decoder: a line over maxLineBytes is reported and skipped, whether or not its end is in the chunk', () => {
  const overflows = [];
  const lines = decodeAll([Buffer.from('abcdef\nok\nxyz'), Buffer.from('uvw'), Buffer.from('rest\nafter\n')], {
    maxLineBytes: 5,
    onOverflow: (bytes) => overflows.push(bytes),
  });
  assert.deepEqual(lines, ['ok', 'after']);
  assert.deepEqual(overflows, [6, 6]);
});

test('decoder: raw mode hands over the bytes, \\r included', () => {
  const lines = decodeAll([Buffer.from('a\r\nb\n')], { raw: true });
  assert.deepEqual(lines.map((line) => line.toString('hex')), ['610d', '62']);
});

test('client: responses split mid-character and coalesced with notifications are all matched by id', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());

  const watching = client.watch({ paths: ['login'] });
  const watchRequest = await peer.read();
  await peer.write(`{"jsonrpc":"2.0","id":${watchRequest.id},"result":{"watch":7,"version":1}}\n`);
  const watch = await watching;

  const first = client.get('login.email');
  const second = client.get('theme.accentColor');
  const [a, b] = [await peer.read(), await peer.read()];
  // Answer out of order, one response and a notification in one write, the other response cut inside "é".
  const response = Buffer.from(`{"jsonrpc":"2.0","id":${b.id},"result":"bleu é"}\n`);
  const cut = response.indexOf(Buffer.from('é')) + 1;
  await peer.write(
    `{"jsonrpc":"2.0","id":${a.id},"result":"kim@example.com"}\n` +
      '{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":7,"version":2,"changes":[{"path":"login.email","value":"kim@example.com"}]}}\n',
  );
  await peer.write(response.subarray(0, cut));
  await new Promise((resolve) => setTimeout(resolve, 10));
  await peer.write(response.subarray(cut));

  assert.equal(await first, 'kim@example.com');
  assert.equal(await second, 'bleu é');
  const iterator = watch[Symbol.asyncIterator]();
  const { value } = await iterator.next();
  assert.deepEqual(value, {
    method: 'graph/didChange',
    params: { watch: 7, version: 2, changes: [{ path: 'login.email', value: 'kim@example.com' }] },
  });
});

test('client: a 3 MiB response line is read whole', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());
  const pending = client.request('view/tree');
  const request = await peer.read();
  const body = Array.from({ length: 30000 }, (_, index) => `line ${index} ${'·'.repeat(40)}`);
  await peer.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { root: { body }, version: 1 } })}\n`);
  const tree = await pending;
  assert.equal(tree.root.body.length, 30000);
  assert.equal(tree.root.body[29999], body[29999]);
});

test('client: a batch response array settles each call in the order of the calls', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());
  const pending = client.batch([
    { method: 'graph/get', params: { path: 'login.email' } },
    { method: 'graph/set', params: { path: 'theme.colorScheme', value: 'dark' }, notification: true },
    { method: 'graph/gte', params: {} },
  ]);
  const batch = await peer.read();
  assert.equal(batch.length, 3);
  assert.equal('id' in batch[1], false);
  await peer.write(
    `${JSON.stringify([
      { jsonrpc: '2.0', id: batch[2].id, error: { code: -32601, message: 'Method not found', data: { kind: 'MethodNotFound', method: 'graph/gte' } } },
      { jsonrpc: '2.0', id: batch[0].id, result: '' },
    ])}\n`,
  );
  const [get, notification, wrong] = await pending;
  assert.deepEqual(get, { status: 'fulfilled', value: '' });
  assert.deepEqual(notification, { status: 'fulfilled', value: undefined });
  assert.equal(wrong.status, 'rejected');
  assert.equal(wrong.reason.kind, 'MethodNotFound');
  assert.equal(wrong.reason.method, 'graph/gte');
});

test('client: a call times out, and its late response is ignored', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false, timeout: 50 });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());
  const slow = client.get('login.email');
  const request = await peer.read();
  await assert.rejects(slow, (error) => error instanceof TimeoutError && error.method === 'graph/get' && error.timeout === 50);
  await peer.write(`{"jsonrpc":"2.0","id":${request.id},"result":"late"}\n`);
  const next = client.get('theme.accentColor', { timeout: 1000 });
  const nextRequest = await peer.read();
  await peer.write(`{"jsonrpc":"2.0","id":${nextRequest.id},"result":"blue"}\n`);
  assert.equal(await next, 'blue');
});

test('client: an AbortSignal cancels a call, before or after it is sent', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());
  await assert.rejects(client.get('login.email', { signal: AbortSignal.abort() }), { name: 'AbortError' });
  const controller = new AbortController();
  const pending = client.get('login.email', { signal: controller.signal });
  const request = await peer.read();
  assert.equal(request.params.path, 'login.email');
  controller.abort(new Error('changed my mind'));
  await assert.rejects(pending, { message: 'changed my mind' });
});

test("client: the daemon's last word before closing (MessageTooLarge) is the cause of ConnectionLost", async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  const closed = new Promise((resolve) => client.once('close', resolve));
  const pending = client.get('login.email');
  await peer.read();
  await peer.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32010,"message":"Message too large","data":{"kind":"MessageTooLarge","limit":1048576}}}\n');
  peer.socket.end();
  await assert.rejects(pending, (error) => {
    assert.ok(error instanceof ConnectionLost);
    assert.ok(error.cause instanceof MessageTooLarge);
    assert.equal(error.cause.limit, 1048576);
    return true;
  });
  assert.ok((await closed) instanceof ConnectionLost);
  assert.equal(client.state, 'closed');
});

test('client: a request over the maxLineBytes the daemon announced fails locally and the connection stays', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake({ maxLineBytes: 200 });
  const client = await connecting;
  t.after(() => client.close());
  await assert.rejects(client.set('login.email', 'x'.repeat(300)), (error) => error instanceof MessageTooLarge && error.limit === 200);
  assert.throws(() => client.notify('graph/set', { path: 'login.email', value: 'x'.repeat(300) }), MessageTooLarge);
  const pending = client.get('login.email');
  const request = await peer.read();
  assert.equal(request.method, 'graph/get');
  await peer.write(`{"jsonrpc":"2.0","id":${request.id},"result":""}\n`);
  assert.equal(await pending, '');
});

test('client: a line that is not JSON from the daemon drops the connection', async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  const pending = client.get('login.email');
  await peer.read();
  await peer.write('this is not json\n');
  await assert.rejects(pending, (error) => error instanceof ConnectionLost && /not JSON/.test(error.message));
});

test('connect: no daemon at the path is ConnectionLost naming the path', async () => {
  await assert.rejects(connect({ socketPath: '/nonexistent/milieu.sock', reconnect: false }), (error) => {
    assert.ok(error instanceof ConnectionLost);
    assert.match(error.message, /\/nonexistent\/milieu\.sock/);
    assert.equal(error.cause.code, 'ENOENT');
    return true;
  });
});

test('client: notifications written together with the watch response reach listeners attached after the await', { timeout: 5000 }, async (t) => {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: false });
  const peer = await server.accept();
  await peer.handshake();
  const client = await connecting;
  t.after(() => client.close());
  const watching = client.watch({ paths: ['theme'], sinceVersion: 1 });
  const request = await peer.read();
  const change = (version) => `{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":3,"version":${version},"changes":[]}}\n`;
  await peer.write(`{"jsonrpc":"2.0","id":${request.id},"result":{"watch":3,"version":3}}\n${change(2)}${change(3)}`);
  const watch = await watching;
  const versions = [];
  await new Promise((resolve) => {
    watch.on('didChange', (params) => {
      versions.push(params.version);
      if (versions.length === 2) resolve();
    });
  });
  assert.deepEqual(versions, [2, 3]);
  assert.equal(watch.version, 3);
});
