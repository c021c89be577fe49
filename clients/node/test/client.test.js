// Every method of the client against a real milieud.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, double, expr, ops, translate, Client, TranslationError, TypeMismatch, ConnectionLost, ResultTooLarge } from '../index.js';
import { clientFor, daemonFor, needsDaemon } from '../testing/helpers.js';

const within = (ms = 3000) => ({ signal: AbortSignal.timeout(ms) });

test('connect sends initialize; initialize answers again', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  assert.ok(client instanceof Client);
  assert.equal(client.state, 'open');
  assert.equal(client.server.name, 'milieud');
  assert.equal(client.capabilities.maxLineBytes, 1048576);
  assert.equal(typeof client.instance, 'string');
  const again = await client.initialize({ client: { name: 'test' }, protocolVersion: '1' });
  assert.equal(again.protocolVersion, '1');
  assert.equal(again.instance, client.instance);
  assert.equal(again.version, 1);
});

test('connect takes a socket path as a string', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await connect(daemon.socketPath);
  t.after(() => client.close());
  assert.equal(client.socketPath, daemon.socketPath);
  assert.equal(await client.get('theme.colorScheme'), 'light');
});

test('connect finds the daemon through MILIEU_SOCKET', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const saved = process.env.MILIEU_SOCKET;
  process.env.MILIEU_SOCKET = daemon.socketPath;
  t.after(() => {
    if (saved === undefined) delete process.env.MILIEU_SOCKET;
    else process.env.MILIEU_SOCKET = saved;
  });
  const client = await connect();
  t.after(() => client.close());
  assert.equal(client.socketPath, daemon.socketPath);
  assert.equal(await client.get('theme.colorScheme'), 'light');
});

test('types lists the built-in types; register adds one', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const { types } = await client.types();
  const login = types.find((type) => type.name === 'Login');
  assert.equal(login.style, 'observable');
  assert.deepEqual(
    login.properties.map(({ name, secure, computed }) => [name, secure, computed]),
    [['email', false, false], ['password', true, false], ['isUserLoggedIn', false, false], ['isValidEmail', false, true]],
  );
  assert.deepEqual(login.actions.map((action) => action.name), ['login', 'logout']);
  const registered = await client.register([{ name: 'Note', style: 'observable', properties: { text: { type: 'string', default: 'hi' } } }]);
  assert.deepEqual(registered, { types: ['Note'], environmentKeys: [], version: 2 });
  await client.register([], { environmentKeys: { tone: { type: 'string', default: 'warm' } } });
  const { types: after, environmentKeys } = await client.types();
  assert.ok(after.some((type) => type.name === 'Note'));
  assert.deepEqual(environmentKeys.find((key) => key.name === 'colorScheme'), {
    name: 'colorScheme', type: 'string', default: 'light', builtIn: true, oneOf: ['light', 'dark'],
  });
  assert.deepEqual(environmentKeys.find((key) => key.name === 'tone'), { name: 'tone', type: 'string', default: 'warm', builtIn: false });
});

test('types name the parameters whose argument is a secret', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.register([{
    name: 'Vault', style: 'observable', properties: { pin: { type: 'string', secure: true } },
    actions: {
      setPin: { parameters: [{ name: 'pin', type: 'string' }], steps: [{ set: 'pin', to: { arg: 'pin' } }] },
      touch: { parameters: [{ name: 'why', type: 'string' }], steps: [] },
    },
  }]);
  const { types } = await client.types();
  assert.deepEqual(types.find((type) => type.name === 'Vault').actions, [
    { name: 'setPin', params: ['pin: string'], secureParams: ['pin'] },
    { name: 'touch', params: ['why: string'] },
  ]);
});

test('get returns values, object snapshots and view snapshots', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  assert.equal(await client.get('theme.fontScale'), 1);
  const theme = await client.get('Theme#2');
  assert.equal(theme.object, 'Theme#2');
  assert.deepEqual(theme.values, { colorScheme: 'light', accentColor: 'blue', fontScale: 1 });
  const login = await client.get('login');
  assert.deepEqual(login.redacted, ['password']);
  const app = await client.get('/App');
  assert.equal(app.path, '/App');
  assert.equal(app.objects.login.object, 'Login#3');
});

test('set writes and returns the version; an equal write takes none; ifVersion guards', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  assert.deepEqual(await client.set('login.email', 'kim@example.com'), { version: 2 });
  assert.deepEqual(await client.set('login.email', 'kim@example.com'), { version: 2 });
  assert.equal(await client.get('login.isValidEmail'), true);
  assert.deepEqual(await client.set('login.email', 'lee@example.com', { ifVersion: 2 }), { version: 3 });
  await assert.rejects(client.set('login.email', 'x', { ifVersion: 2 }), { kind: 'VersionConflict', expected: 2, actual: 3 });
});

test('double() sends a double, so a @State initialised with it is a double', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({ parent: '/App', name: 'Scales', state: { exact: double(1), plain: 1 }, body: ['{exact} {plain}'] });
  assert.deepEqual((await client.get('/App/Scales')).body, ['1.0 1']);
  assert.deepEqual(await client.set('/App/Scales.exact', 1.5), { version: 3 });
  await assert.rejects(client.set('/App/Scales.plain', 1.5), TypeMismatch);
});

test('explain names the request, the attribute it wrote and the view it re-rendered', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({ parent: '/App', name: 'Greeting', environment: { login: { type: 'Login' } }, body: ['{login.email}'] });
  await client.set('login.email', 'a@example.com');
  const { version } = await client.set('login.email', 'b@example.com');
  const explained = await client.explain(version);
  assert.deepEqual(explained.cause.ops, [{ method: 'graph/set', path: 'login.email' }]);
  const attribute = explained.nodes.find((node) => node.kind === 'attribute');
  assert.deepEqual([attribute.property, attribute.old, attribute.new], ['email', 'a@example.com', 'b@example.com']);
  const view = explained.nodes.find((node) => node.kind === 'view');
  assert.deepEqual([view.path, view.reasons], ['/App/Greeting', ['login.email']]);
  assert.deepEqual(explained.edges, [
    { from: 'cause', to: attribute.id, kind: 'wrote' },
    { from: attribute.id, to: view.id, kind: 'invalidated', reason: 'login.email' },
  ]);
  await assert.rejects(client.explain(version + 100), (error) => error.code === -32602);
});

test('call runs an action with positional arguments', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  assert.deepEqual(await client.call('session.start', 'kim'), { result: null, version: 2 });
  assert.equal(await client.get('session.user'), 'kim');
  await client.mount({ parent: '/App', name: 'Shop', stateObjects: { cart: { type: 'Cart' } } });
  await client.call('/App/Shop.cart.add', 'apple');
  await client.call('/App/Shop.cart.add', 'pear');
  assert.deepEqual(await client.get('/App/Shop.cart.items'), ['apple', 'pear']);
});

test('mount gives a @State its Swift type with stateTypes', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  // `@State var name: String? = "kim"` (SPEC 6.1): the declared type, not the first value's, decides.
  await client.mount({ parent: '/App', name: 'Named', state: { name: 'kim' }, stateTypes: { name: 'string?' }, body: ['{name}'] });
  await client.set('/App/Named.name', null);
  assert.equal(await client.get('/App/Named.name'), null);
  await assert.rejects(client.set('/App/Named.name', 3), TypeMismatch);
});

test('transaction applies ops all or nothing, as one version', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const done = await client.transaction([
    ops.set('theme.colorScheme', 'dark'),
    ops.call('session.start', 'kim'),
    ops.mount({ parent: '/App', name: 'Banner', body: ['hello {x}'], state: { x: 1 } }),
    ops.provide('/App', { environment: { locale: 'ko_KR' } }),
  ]);
  assert.equal(done.version, 2);
  assert.equal(done.results.length, 4);
  assert.deepEqual(done.results[2].body, ['hello 1']);
  await assert.rejects(client.transaction([ops.set('theme.colorScheme', 'light'), ops.set('theme.colorScheme', 'sepia')]), {
    kind: 'InvalidValue',
    op: 1,
  });
  assert.equal(await client.get('theme.colorScheme'), 'dark');
  assert.deepEqual(await client.transaction([ops.unmount('/App/Banner'), ops.set('theme.fontScale', 2, { ifVersion: 2 })]), {
    results: [{ version: 3 }, { version: 3 }],
    version: 3,
  });
  await assert.rejects(client.get('/App/Banner'), { kind: 'UnknownPath' });
});

// SPEC §9.7: a failed op undoes the ops before it, an unmount included.
test('a failed transaction rolls back an unmount it made', { ...needsDaemon }, async (t) => {
  const client = await clientFor(t, await daemonFor(t), { reconnect: false });
  await client.mount({ parent: '/App', name: 'Banner' });
  await assert.rejects(client.transaction([ops.unmount('/App/Banner'), ops.set('theme.colorScheme', 'sepia')]), { kind: 'InvalidValue', op: 1 });
  assert.equal((await client.get('/App/Banner')).path, '/App/Banner');
});

test('mount, provide, tree and unmount', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const level1 = await client.mount({ parent: '/App', name: 'Level1', stateObjects: { cart: { type: 'Cart' } } });
  assert.deepEqual(level1, { path: '/App/Level1', body: [], objects: { cart: 'Cart#4' }, version: 2 });
  await client.provide('/App/Level1', { environmentObjects: ['cart'] });
  const checkout = await client.mount({ parent: '/App/Level1', name: 'Checkout', environmentObjects: { cart: 'Cart' }, body: ['items: {cart.items}'] });
  assert.deepEqual(checkout.body, ['items: []']);
  assert.deepEqual(checkout.objects, { cart: 'Cart#4' });
  const { root } = await client.tree('/App/Level1');
  assert.deepEqual(root.provides.environmentObjects, { Cart: 'Cart#4' });
  assert.deepEqual([root.evaluations, root.lastEvaluated], [1, 2]);
  assert.deepEqual(root.children.map((child) => child.path), ['/App/Level1/Checkout']);
  assert.equal((await client.tree()).root.path, '/App');
  const { version } = await client.unmount('/App/Level1');
  assert.equal(typeof version, 'number');
  await assert.rejects(client.get('/App/Level1'), { kind: 'UnknownPath' });
});

test('watch, unwatch, then no more notifications for it', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const watch = await client.watch({ paths: ['theme'] });
  assert.equal(watch.id, 1);
  assert.equal(watch.version, 1);
  assert.deepEqual(watch.params, { paths: ['theme'] });
  const iterator = watch[Symbol.asyncIterator]();
  await client.set('theme.colorScheme', 'dark');
  assert.deepEqual((await iterator.next()).value.params.changes, [{ path: 'theme.colorScheme', value: 'dark' }]);
  assert.deepEqual(await client.unwatch(watch), {});
  assert.equal(watch.ended, true);
  await client.set('theme.colorScheme', 'light');
  assert.deepEqual(await iterator.next(), { value: undefined, done: true });
  await assert.rejects(client.unwatch(1), { kind: 'InvalidParams', field: '/watch' });
});

test('a commits watch tells every commit, with its cause and counts, last of its version', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon);
  const writer = await clientFor(t, daemon);
  const monitor = await client.watch({ commits: true, paths: ['login.email'] });
  const iterator = monitor[Symbol.asyncIterator]();
  const { version } = await writer.set('login.email', 'kim@example.com');
  const change = (await iterator.next()).value;
  assert.equal(change.method, 'graph/didChange');
  const commit = (await iterator.next()).value;
  assert.equal(commit.method, 'graph/didCommit');
  assert.equal(commit.params.version, version);
  assert.deepEqual(
    [commit.params.cause.client, commit.params.cause.pid, commit.params.cause.ops],
    ['milieu-node', process.pid, [{ method: 'graph/set', path: 'login.email' }]],
  );
  assert.equal(commit.params.counts.values, 2);
});

test('a view watch waits for a view not mounted yet; a destroyed target says which target ended', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const later = await client.watch({ views: ['/App/Container'] });
  assert.deepEqual(later.notMounted, ['/App/Container']);
  const mounted = once(later, 'didMount', within());
  await client.mount({ parent: '/App', name: 'Container', state: { toggle: false } });
  assert.equal((await mounted)[0].path, '/App/Container');
  await client.mount({
    parent: '/App/Container', name: 'LoginView2', inputs: { t: { $parent: 'toggle' } },
    observedObjects: { loginVM: { construct: 'LoginViewModel' } },
  });
  const email = await client.watch({ paths: ['/App/Container/LoginView2.loginVM.email'] });
  assert.deepEqual(email.notMounted, []);
  const destroyed = once(email, 'objectDestroyed', within());
  await client.set('/App/Container.toggle', true);
  const [gone] = await destroyed;
  assert.deepEqual([gone.reason, gone.endedTargets], ['replaced', ['/App/Container/LoginView2.loginVM.email']]);
});

test('batch sends many requests on one line; notify sends one without id', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  client.notify('graph/set', { path: 'theme.accentColor', value: 'red' });
  const results = await client.batch([
    { method: 'graph/get', params: { path: 'theme.accentColor' } },
    { method: 'graph/set', params: { path: 'theme.colorScheme', value: 'dark' }, notification: true },
    { method: 'graph/set', params: { path: 'login.email', value: 'kim@example.com' } },
    { method: 'graph/gte', params: {} },
  ]);
  assert.deepEqual(results.slice(0, 3), [
    { status: 'fulfilled', value: 'red' },
    { status: 'fulfilled', value: undefined },
    { status: 'fulfilled', value: { version: 4 } },
  ]);
  assert.equal(results[3].reason.kind, 'MethodNotFound');
  assert.equal(await client.get('theme.colorScheme'), 'dark');
  await assert.rejects(client.batch([]), TypeError);
});

test('daemonInfo counts what the daemon serves; daemonClients names each connection', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon);
  const info = await client.daemonInfo();
  assert.equal(info.server.name, 'milieud');
  assert.equal(info.socket, daemon.socketPath);
  assert.equal(info.instance, client.instance);
  assert.deepEqual([info.connections, info.watches], [1, 0]);
  const other = await clientFor(t, daemon);
  await other.mount({ parent: '/App', name: 'Probe', stateObjects: { cart: { type: 'Cart' } } });
  await client.watch({ paths: ['theme'] });
  const busier = await client.daemonInfo();
  assert.deepEqual(
    [busier.connections, busier.watches, busier.views, busier.objects],
    [2, 1, info.views + 1, info.objects + 1],
  );
  const { clients } = await other.daemonClients();
  assert.deepEqual(
    clients.map((c) => [c.self, c.pid, c.name, c.watches, c.views]),
    [[false, process.pid, 'milieu-node', 1, 0], [true, process.pid, 'milieu-node', 0, 1]],
  );
});

test('controls are listed, pressed and typed into; printChanges comes with the update', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({
    parent: '/App', name: 'Counter', state: { count: 0, note: '' }, printChanges: true,
    body: [
      { text: { get: 'count' } },
      { button: '+', action: [{ set: 'count', to: { '+': [{ get: 'count' }, 1] } }] },
      { textField: 'Note', text: 'note' },
      { disabled: true, content: [{ button: 'Reset', action: [{ set: 'count', to: 0 }] }] },
    ],
  });
  const { controls } = await client.controls('/App/Counter');
  assert.deepEqual(controls.map((c) => [c.kind, c.label, c.disabled]), [['button', '+', false], ['textField', 'Note', false], ['button', 'Reset', true]]);
  const watch = await client.watch({ views: ['/App/Counter'] });
  const updated = new Promise((resolve) => watch.on('didUpdate', resolve));
  const { version } = await client.tap('/App/Counter', '+');
  const update = await updated;
  assert.deepEqual([update.version, update.body[0], update.printChanges], [version, '1', 'Counter: _count changed.']);
  await client.input('/App/Counter', 'Note', 'hello');
  assert.equal((await client.controls('/App/Counter')).controls[1].value, 'hello');
  await assert.rejects(client.tap('/App/Counter', 'Reset'), (e) => e.kind === 'Forbidden' && e.data.reason === 'disabled');
  await assert.rejects(client.tap('/App/Counter', '-'), (e) => e.kind === 'UnknownPath');
  await assert.rejects(client.input('/App/Counter', 'Note', 3), (e) => e.kind === 'InvalidParams');
});

test('a closure passed to a child runs in the parent; an equatable child keeps out of it', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const bump = expr.closure([{ set: 'taps', to: { '+': [{ get: 'taps' }, { get: 'by' }] } }], ['by']);
  assert.deepEqual(bump.$closure.params, ['by']);
  await client.mount({
    parent: '/App', name: 'Counter', state: { taps: 0 },
    body: [
      'taps {taps}',
      { view: { name: 'Row', inputs: { onTap: bump }, body: [{ button: 'tap', action: [{ call: 'onTap', args: [2] }] }] } },
      { view: { name: 'Quiet', inputs: { onTap: bump, n: 1 }, equatable: ['n'], body: ['n'] } },
    ],
  });
  const watch = await client.watch({ views: ['/App/Counter'] });
  const updates = [];
  watch.on('didUpdate', (update) => updates.push(update.path));
  const { version } = await client.tap('/App/Counter/Row', 'tap');
  assert.equal(await client.get('/App/Counter.taps'), 2);
  await client.get('/App');  // every notification of the tap has arrived before this answer
  assert.deepEqual(updates, ['/App/Counter', '/App/Counter/Row'], `at v${version}`);
});

test('a watch with printChanges gets every view\'s line, declared or not', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const every = await client.watch({ views: ['/App/Counter'], printChanges: true });
  const plain = await client.watch({ views: ['/App/Counter'] });
  const mounted = new Promise((resolve) => every.on('didMount', resolve));
  const plainMounted = new Promise((resolve) => plain.on('didMount', resolve));
  await client.mount({
    parent: '/App', name: 'Counter', state: { count: 0 },
    body: ['{count}', { button: '+', action: [{ set: 'count', to: { '+': [{ get: 'count' }, 1] } }] }],
  });
  assert.equal((await mounted).printChanges, 'Counter: @self, @identity, _count changed.');
  assert.equal((await plainMounted).printChanges, undefined);
  const updated = new Promise((resolve) => every.on('didUpdate', resolve));
  await client.tap('/App/Counter', '+');
  assert.equal((await updated).printChanges, 'Counter: _count changed.');
});

test('Swift source is translated, loaded and driven; an error names what is missing', needsDaemon, async (t) => {
  const seeds = new URL('../../../seeds/', import.meta.url).pathname;
  const client = await clientFor(t, await daemonFor(t));
  const scene = await translate([`${seeds}000_00.swift`]);
  assert.ok(scene.diagnostics.some((line) => line.includes('roundedField()')));
  const loaded = await client.load(scene);
  assert.deepEqual([loaded.types, loaded.views], [['LoginViewModel'], ['/App/ContainerView']]);
  const email = '이메일을 입력해 주세요...';
  for (const view of ['LoginView1', 'LoginView2']) await client.input(`/App/ContainerView/${view}`, email, 'kim@example.com');
  await client.input('/App/ContainerView', '토글해봅시다', true);
  assert.equal(await client.get('/App/ContainerView/LoginView1.loginVM.email'), 'kim@example.com');
  assert.equal(await client.get('/App/ContainerView/LoginView2.loginVM.email'), '');
  await assert.rejects(translate([`${seeds}004_03.swift`]), (error) =>
    error instanceof TranslationError && error.diagnostics.some((line) => line.includes('code is left out here')));
});

test('reset goes back to the scene start; dryRun only says what it would do', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({ parent: '/App', name: 'Kept', retain: true });
  await client.set('theme.colorScheme', 'dark');
  const planned = await client.reset({ dryRun: true });
  // The secure values are listed, and set back, whatever they are (rule 13).
  const secure = ['/App.session.token', '/App.login.password'];
  assert.deepEqual([planned.unmounted, planned.written], [['/App/Kept'], ['/App.session.token', '/App.theme.colorScheme', '/App.login.password']]);
  assert.equal(await client.get('theme.colorScheme'), 'dark');
  const done = await client.reset();
  assert.equal(done.version, planned.version + 1);
  assert.equal(await client.get('theme.colorScheme'), 'light');
  assert.deepEqual((await client.reset()).written, secure);
});

test('discover returns the OpenRPC document', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const document = await client.discover();
  assert.equal(document.openrpc, '1.3.2');
  assert.ok(document.methods.some((method) => method.name === 'graph/set'));
});

test('dependencies, readers and environment say why a view re-renders', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({
    parent: '/App', name: 'Shop', stateObjects: { cart: { type: 'Cart' } }, environment: { login: { type: 'Login' } },
    provide: { environmentObjects: ['cart'] }, body: ['{login.isValidEmail}'],
  });
  await client.mount({ parent: '/App/Shop', name: 'CartList', environmentObjects: { cart: 'Cart' }, body: ['{cart.items}'] });
  const { dependencies } = await client.dependencies('/App/Shop');
  assert.deepEqual(dependencies, [
    { kind: 'object', object: 'Cart#4', type: 'Cart', reasons: ['_cart'] },
    { kind: 'property', path: 'Login#3.email', object: 'Login#3', property: 'email', reasons: ['login.email'] },
  ]);
  assert.deepEqual((await client.readers('login.isValidEmail')).readers, [{ view: '/App/Shop', reasons: ['login.email'] }]);
  assert.deepEqual((await client.readers('/App/Shop.cart.items')).readers.map((reader) => reader.view), ['/App/Shop', '/App/Shop/CartList']);
  const environment = await client.environment('/App/Shop/CartList');
  assert.deepEqual(environment.environmentObjects, [{ type: 'Cart', object: 'Cart#4', provider: '/App/Shop' }]);
  assert.deepEqual(environment.environment.find((entry) => entry.key === 'colorScheme'), { key: 'colorScheme', value: 'light', provider: null });
  await assert.rejects(client.readers('login.nope'), { kind: 'UnknownPath' });
  // Did you mean: the nearest known names, on the error (SPEC §3.2).
  await assert.rejects(client.get('login.emial'), (e) => e.kind === 'UnknownPath' && e.suggestions[0] === 'email');
  await assert.rejects(client.request('graph/gett', {}), (e) => e.kind === 'MethodNotFound' && e.suggestions[0] === 'graph/get');
});

test('dependencies, readers and environment never show a secure value', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.set('login.password', 'hunter2-node');
  await client.set('session.token', 'token-node-42');
  await client.mount({
    parent: '/App', name: 'Secrets', environment: { login: { type: 'Login' }, session: { type: 'Session' } },
    body: ['{login.password} {session.token}'],
  });
  const answers = JSON.stringify([
    await client.dependencies('/App/Secrets'), await client.readers('login.password'), await client.readers('session.token'),
    await client.environment('/App/Secrets'),
  ]);
  assert.ok(!answers.includes('hunter2-node') && !answers.includes('token-node-42'), answers);
  assert.deepEqual((await client.readers('session.token')).readers, [{ view: '/App/Secrets', reasons: ['session.token'] }]);
});

test('request sends any method, with options', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  assert.deepEqual(await client.request('graph/call', { path: 'session.start', args: ['kim'] }, { timeout: 2000 }), { result: null, version: 2 });
});

test('shutdown stops the daemon and closes the client without reconnecting', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await connect({ socketPath: daemon.socketPath });
  const closed = new Promise((resolve) => client.once('close', resolve));
  assert.deepEqual(await client.shutdown(), {});
  assert.equal(await closed, undefined);
  assert.equal(client.state, 'closed');
  assert.deepEqual(await daemon.stop(), { code: 0, signal: null });
  await assert.rejects(client.get('login.email'), ConnectionLost);
});

test('close fails pending calls and ends watches cleanly', needsDaemon, async (t) => {
  const client = await connect({ socketPath: (await daemonFor(t)).socketPath });
  const watch = await client.watch({ lifecycle: true });
  const ended = new Promise((resolve) => watch.once('end', resolve));
  const failed = assert.rejects(client.get('login.email'), ConnectionLost);
  await client.close();
  await failed;
  assert.equal(await ended, undefined);
  assert.equal(client.state, 'closed');
  await client.close();
});

/** `/App/List` and `count` rows under it, each with `body`, mounted in transactions of 50. */
async function mountRows(client, count, body) {
  await client.mount({ parent: '/App', name: 'List' });
  for (let first = 0; first < count; first += 50) {
    const rows = [];
    for (let n = first; n < Math.min(first + 50, count); n++) rows.push(ops.mount({ parent: '/App/List', name: 'Row', id: n, body: [body] }));
    await client.transaction(rows);
  }
}

test('tree follows cursors and puts the pages together', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountRows(client, 120, 'row');
  await client.mount({ parent: '/App/List/Row[7]', name: 'Detail' });
  const { root, version } = await client.tree('/App/List', { pageSize: 25 });
  assert.equal(root.path, '/App/List');
  assert.equal('parent' in root, false);
  assert.deepEqual(root.children.map((row) => row.path), Array.from({ length: 120 }, (_, n) => `/App/List/Row[${n}]`));
  assert.deepEqual(root.children[7].children.map((child) => child.path), ['/App/List/Row[7]/Detail']);
  assert.equal(version, (await client.initialize()).version);
});

test('tree with a depth counts the children it leaves out', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountRows(client, 3, 'row');
  const { root } = await client.tree(undefined, { depth: 1 });
  const [list] = root.children;
  assert.equal(list.childCount, 3);
  assert.equal(list.children, undefined);
});

test('a tree over the output limit is ResultTooLarge whole and comes in pages', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t, ['--output-limit', '65536,32768,30']));
  await mountRows(client, 400, 'b'.repeat(200));
  const refused = await client.request('view/tree', { path: '/App/List' }).catch((error) => error);
  assert.ok(refused instanceof ResultTooLarge, String(refused));
  assert.equal(refused.limit, 65536);
  assert.equal(refused.method, 'view/tree');
  assert.equal((await client.tree('/App/List', { pageSize: 100 })).root.children.length, 400);
});
