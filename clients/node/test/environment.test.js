// The two observation systems and the environment (SPEC §6.1, §6.2, §9.3, §9.10): an @Observable object
// owned with @State (expr.new), provided with .environment(x) (observables) and read with
// @Environment(T.self); custom environment keys registered and read; $new objects' lifecycle reasons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expr, ops, InUse, InvalidDeclaration, InvalidValue } from '../index.js';
import { clientFor, daemonFor, needsDaemon, take } from '../testing/helpers.js';

/** The [method, params] of notifications, without the watch id. */
const plain = (notifications) => notifications.map(({ method, params: { watch, ...params } }) => [method, params]);

test('expr builds the expressions of SPEC §6.2; ops.provide takes observables', () => {
  assert.deepEqual(expr.parent('state.favoritePrimes'), { $parent: 'state.favoritePrimes' });
  assert.deepEqual(expr.input('num'), { $input: 'num' });
  assert.deepEqual(expr.constant(true), { $constant: true });
  assert.deepEqual(expr.constant(expr.parent('on')), { $constant: { $parent: 'on' } });
  assert.deepEqual(expr.literal({ $parent: 'x' }), { $literal: { $parent: 'x' } });
  assert.deepEqual(expr.new('Counter'), { $new: { type: 'Counter' } });
  assert.deepEqual(expr.new('Counter', { count: expr.parent('n') }), { $new: { type: 'Counter', init: { count: { $parent: 'n' } } } });
  assert.deepEqual(ops.provide('/App', { observables: ['counter'], withdraw: ['locale'] }), {
    method: 'view/provide',
    params: { path: '/App', observables: ['counter'], withdraw: ['locale'] },
  });
});

test('an @Observable object is provided with .environment(x) and read with @Environment(T.self)', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  // @State var counter = Counter(count: 3), and .environment(counter) in the declaration.
  const shop = await client.mount({ parent: '/App', name: 'Shop', state: { counter: expr.new('Counter', { count: 3 }) }, provide: { observables: ['counter'] } });
  assert.deepEqual(shop, { path: '/App/Shop', body: [], objects: { counter: 'Counter#4' }, version: 2 });
  const badge = await client.mount({ parent: '/App/Shop', name: 'Badge', environment: { counter: { type: 'Counter' } }, body: ['count: {counter.count}'] });
  assert.deepEqual(badge, { path: '/App/Shop/Badge', body: ['count: 3'], objects: { counter: 'Counter#4' }, version: 3 });
  const { root } = await client.tree('/App/Shop');
  assert.deepEqual(root.provides, { environmentObjects: {}, observables: { Counter: 'Counter#4' }, environment: {} });
  assert.deepEqual(root.objects.counter, { object: 'Counter#4', type: 'Counter', wrapper: 'state' });
  assert.deepEqual(root.children[0].objects.counter, { object: 'Counter#4', type: 'Counter', wrapper: 'environment' });

  const watch = await client.watch({ views: ['/App'] });
  const notes = watch[Symbol.asyncIterator]();
  await client.call('/App/Shop.counter.add');
  assert.deepEqual(plain(await take(notes, 1)), [['view/didUpdate', { version: 4, path: '/App/Shop/Badge', reasons: ['counter.count'], body: ['count: 4'] }]]);

  // var counter: Counter? reads null until an ancestor provides one, then is evaluated again.
  const extra = await client.mount({ parent: '/App', name: 'Extra', environment: { extra: { type: 'Counter', optional: true } }, body: ['{extra}'] });
  assert.deepEqual(extra.body, ['null']);
  assert.deepEqual((await client.get('/App/Extra')).objects, { extra: null });
  assert.deepEqual(await client.provide('/App', { observables: ['/App/Shop.counter'] }), { version: 6 });
  assert.deepEqual(plain(await take(notes, 2)), [
    ['view/didMount', { version: 5, path: '/App/Extra', reason: 'mounted', body: ['null'] }],
    ['view/didUpdate', { version: 6, path: '/App/Extra', reasons: ['_extra'], body: ['Counter#4'] }],
  ]);

  // The two slots are apart: an @Observable object is no environment object.
  await assert.rejects(client.provide('/App/Shop', { environmentObjects: ['counter'] }), (error) => error instanceof InvalidDeclaration && error.field === 'environmentObjects');
  // Withdrawing /App's Counter is fine (Extra's is optional); Shop's is what Badge requires.
  assert.deepEqual(await client.provide('/App', { withdraw: ['Counter'] }), { version: 7 });
  await assert.rejects(client.transaction([ops.provide('/App/Shop', { withdraw: ['Counter'] })]), (error) => {
    assert.ok(error instanceof InUse);
    assert.deepEqual([error.provided, error.dependents, error.op], ['Counter', ['/App/Shop/Badge'], 0]);
    return true;
  });
});

test('environment keys are registered with their defaults, then read and provided', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const tagline = { tagline: { type: 'string', default: 'hello' } };
  assert.deepEqual(await client.register([], { environmentKeys: tagline }), { types: [], environmentKeys: ['tagline'], version: 2 });
  assert.deepEqual(await client.register(undefined, { environmentKeys: tagline }), { types: [], environmentKeys: [], version: 2 });
  await assert.rejects(client.register([], { environmentKeys: { tagline: { type: 'string', default: 'bye' } } }), InvalidDeclaration);
  await assert.rejects(client.register([]), { kind: 'InvalidParams' });
  const both = await client.register([{ name: 'Note', style: 'observable', properties: { text: { type: 'string' } } }], {
    environmentKeys: { mood: { type: 'string', default: 'calm', oneOf: ['calm', 'busy'] } },
    timeout: 2000,
  });
  assert.deepEqual(both, { types: ['Note'], environmentKeys: ['mood'], version: 3 });

  // @Environment(\.tagline) var line, and @Environment(\.mood) var mood.
  const banner = await client.mount({ parent: '/App', name: 'Banner', environment: { line: { key: 'tagline' }, mood: { key: 'mood' } }, body: ['{line} ({mood})'] });
  assert.deepEqual(banner.body, ['hello (calm)']);
  const notes = (await client.watch({ views: ['/App/Banner'] }))[Symbol.asyncIterator]();
  assert.deepEqual(await client.provide('/App', { environment: { tagline: 'bye', mood: 'busy' } }), { version: 5 });
  assert.deepEqual(await client.provide('/App', { withdraw: ['mood'] }), { version: 6 });
  assert.deepEqual(plain(await take(notes, 2)), [
    ['view/didUpdate', { version: 5, path: '/App/Banner', reasons: ['env.mood', 'env.tagline'], body: ['bye (busy)'] }],
    ['view/didUpdate', { version: 6, path: '/App/Banner', reasons: ['env.mood'], body: ['bye (calm)'] }],
  ]);
  assert.deepEqual((await client.get('/App/Banner')).environment, { line: 'bye', mood: 'calm' });
  await assert.rejects(client.provide('/App', { environment: { mood: 'loud' } }), InvalidValue);
  await assert.rejects(client.mount({ parent: '/App', name: 'Weather', environment: ['forecast'] }), { kind: 'InvalidDeclaration', field: 'environment.forecast' });
});

test('$new in state is @State holding an object; in inputs a new object at every evaluation of the parent', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const notes = (await client.watch({ lifecycle: true }))[Symbol.asyncIterator]();
  await client.mount({ parent: '/App', name: 'Parent', state: { n: 0 }, body: ['{n}'] });
  const child = await client.mount({
    parent: '/App/Parent',
    name: 'Child',
    state: { kept: expr.new('Counter', { count: expr.parent('n') }) }, // @State var kept = Counter(count: n)
    inputs: { passed: expr.new('Counter') }, // let passed: Counter, given Counter() by the parent
    body: ['{kept.count} {passed.count}'],
  });
  assert.deepEqual(child.objects, { passed: 'Counter#4', kept: 'Counter#5' });
  const kept = '/App/Parent/Child.kept';
  const passed = '/App/Parent/Child.passed';
  const lifecycle = (items) => items.map(({ method, params }) => [method, params.object, params.owner, params.reason]);
  assert.deepEqual(lifecycle(await take(notes, 2)), [
    ['object/didCreate', 'Counter#4', passed, 'construct'],
    ['object/didCreate', 'Counter#5', kept, 'state'],
  ]);
  // The parent's evaluation makes both again: the input replaces the old one; the state's initial
  // value is thrown away, the identity keeps the first.
  await client.set('/App/Parent.n', 1);
  assert.deepEqual(lifecycle(await take(notes, 4)), [
    ['object/didCreate', 'Counter#6', passed, 'construct'],
    ['object/didCreate', 'Counter#7', kept, 'stateInitial'],
    ['object/didDestroy', 'Counter#4', passed, 'replaced'],
    ['object/didDestroy', 'Counter#7', kept, 'discarded'],
  ]);
  assert.equal(await client.get(`${kept}.count`), 0);
});
