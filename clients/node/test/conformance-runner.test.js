// The conformance runner itself: its pattern matching, its case format, and its steps against a real milieud.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { findCases, match, parseCase, runCase } from '../conformance.js';
import { parseExact } from '../lib/exact-json.js';
import { Redaction, WireChecks } from '../lib/conformance/wire-checks.js';
import { MILIEUD, needsDaemon } from '../testing/helpers.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/conformance/', import.meta.url));

/** Matches JSON texts, as the runner reads them; returns the mismatch (or null) and the captures. */
function check(pattern, value, captures = new Map()) {
  return { mismatch: match(parseExact(pattern), parseExact(value), captures), captures };
}

test('match: objects need the same members unless $partial; arrays the same length', () => {
  assert.equal(check('{"a":1,"b":[true,null]}', '{"b":[true,null],"a":1}').mismatch, null);
  assert.match(check('{"a":1}', '{"a":1,"b":2}').mismatch, /unexpected "b"/);
  assert.match(check('{"a":1,"b":2}', '{"a":1}').mismatch, /missing "b"/);
  assert.equal(check('{"$partial":true,"a":1}', '{"a":1,"b":2}').mismatch, null);
  assert.match(check('{"$partial":true,"c":1}', '{"a":1}').mismatch, /missing "c"/);
  assert.match(check('[1,2]', '[1,2,3]').mismatch, /expected 2 elements/);
  assert.match(check('{"a":{"b":[1,"x"]}}', '{"a":{"b":[1,"y"]}}').mismatch, /^\$\.a\.b\[1\]: expected "x", got "y"/);
  assert.throws(() => check('{"$partial":"yes"}', '{}'), /"\$partial" must be true or false/);
});

test('match: numbers compare by value, as the case format defines (1 matches 1.0); never true and 1', () => {
  assert.equal(check('1', '1.0').mismatch, null);
  assert.equal(check('1.0', '1').mismatch, null);
  assert.equal(check('[0.5]', '[5e-1]').mismatch, null);
  assert.match(check('1', '2.0').mismatch, /expected 1, got 2\.0/);
  assert.equal(check('"$int"', '9223372036854775807').mismatch, null);
  assert.equal(check('"$int"', '2.0').mismatch, null);
  assert.match(check('"$int"', '2.5').mismatch, /expected an integer/);
  assert.equal(check('"$number"', '2.5').mismatch, null);
  assert.match(check('true', '1').mismatch, /expected true/);
  assert.match(check('1', 'true').mismatch, /expected 1/);
  const captures = new Map([['v', parseExact('3.0')]]);
  assert.equal(check('"$ref:v+1"', '4', captures).mismatch, null);
  assert.equal(check('"$ref:v"', '3', captures).mismatch, null);
});

test('match: $text matches a number written exactly so, the ids the daemon echoes verbatim', () => {
  for (const text of ['1.50', '-0', '1e400', '9223372036854775808', '7', '1E+2']) assert.equal(check(`"$text:${text}"`, text).mismatch, null, text);
  for (const [text, written] of [['1.50', '1.5'], ['-0', '0'], ['1e400', '1E400'], ['7', '7.0']]) {
    assert.match(check(`"$text:${text}"`, written).mismatch, /expected a number written/, text);
  }
  assert.notEqual(check('"$text:1.50"', '"1.50"').mismatch, null);
});

test('match: type matchers, $contains and $$', () => {
  for (const [pattern, good, bad] of [
    ['$any', 'null', null],
    ['$string', '"x"', '1'],
    ['$bool', 'false', '0'],
    ['$null', 'null', 'false'],
    ['$object', '{}', '[]'],
    ['$array', '[]', '{}'],
  ]) {
    assert.equal(check(`"${pattern}"`, good).mismatch, null, pattern);
    if (bad !== null) assert.notEqual(check(`"${pattern}"`, bad).mismatch, null, pattern);
  }
  assert.equal(check('"$contains:type Cart"', '"No ObservableObject of type Cart found."').mismatch, null);
  assert.notEqual(check('"$contains:Cart"', '["Cart"]').mismatch, null);
  assert.equal(check('"$$ref:x"', '"$ref:x"').mismatch, null);
  assert.notEqual(check('"$$ref:x"', '"$$ref:x"').mismatch, null);
  assert.throws(() => check('"$integer"', '1'), /unknown matcher \$integer/);
});

test('match: captures count once the whole value matched; $ref and $ref+K use them', () => {
  const { mismatch, captures } = check('{"version":"$capture:v","watch":"$capture:w"}', '{"version":4,"watch":1}');
  assert.equal(mismatch, null);
  assert.equal(check('{"version":"$ref:v+1","watch":"$ref:w"}', '{"version":5,"watch":1}', captures).mismatch, null);
  assert.match(check('"$ref:v+1"', '4', captures).mismatch, /expected 5 \(\$ref:v\+1\)/);
  const failed = check('[{"a":"$capture:late"},2]', '[{"a":1},3]');
  assert.notEqual(failed.mismatch, null);
  assert.equal(failed.captures.has('late'), false);
  assert.throws(() => check('["$capture:x","$ref:x"]', '[1,1]'), /nothing captured in an earlier step/);
  assert.throws(() => check('["$capture:x","$capture:x"]', '[1,1]'), /captures x twice/);
  assert.match(check('"$ref:s+1"', '1', new Map([['s', 'text']])).mismatch, /needs an integer capture/);
});

test('parseCase: the header and steps as step.schema.json has them', () => {
  const { header, steps } = parseCase('{"case":"c","description":"d"}\n{"send":{"x":1.5}}\n{"expect":1,"conn":"b"}\n{"open":"b"}\n');
  assert.equal(header.case, 'c');
  assert.deepEqual(
    steps.map(({ line, action, conn }) => [line, action, conn]),
    [[2, 'send', 'a'], [3, 'expect', 'b'], [4, 'open', 'a']],
  );
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n\n{"expect":1}\n'), /line 2: not one JSON value/);
  assert.throws(() => parseCase('{"case":"c","description":"d","extra":1}\n'), /unknown member extra/);
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n{"send":1,"expect":2}\n'), /exactly one of/);
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n{"open":"b","conn":"a"}\n'), /unknown member conn/);
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n{"sendHex":"0a 0b"}\n'), /invalid sendHex/);
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n{"expectNothing":5001}\n'), /invalid expectNothing/);
  assert.throws(() => parseCase('{"case":"c","description":"d"}\n', 'other'), /not the file's name other/);
});

test('findCases: recursive and sorted; a missing directory has none', () => {
  const found = findCases(path.join(FIXTURES, 'cases')).map((file) => path.relative(FIXTURES, file));
  assert.deepEqual(found, ['cases/runner/closed-after-too-large.jsonl', 'cases/runner/every-step.jsonl', 'cases/runner/scene.jsonl']);
  assert.deepEqual(findCases(path.join(FIXTURES, 'nonexistent')), []);
});

test('runCase: the fixture cases pass against milieud (every step, daemonArgs, a scene)', needsDaemon, async () => {
  for (const file of findCases(path.join(FIXTURES, 'cases'))) {
    const result = await runCase(file, { milieud: MILIEUD });
    assert.equal(result.ok, true, `${result.name}: ${result.error}`);
  }
});

test('runCase: failing cases are reported with the step line and why', needsDaemon, async () => {
  const run = (name) => runCase(path.join(FIXTURES, 'failing', `${name}.jsonl`), { milieud: MILIEUD });
  const wrong = await run('wrong-value');
  assert.equal(wrong.ok, false);
  assert.deepEqual([wrong.step, wrong.line], [2, 3]);
  assert.match(wrong.error, /\$\.result: expected "red", got "blue"/);
  assert.match((await run('unexpected-message')).error, /expectNothing on a: a message arrived/);
  const bad = await run('bad-header');
  assert.equal(bad.name, 'bad-header');
  assert.match(bad.error, /^case error: .*not the file's name bad-header/);
});

test('wire checks: the JSON-RPC envelope, and responses answer pending requests', () => {
  const checks = new WireChecks(new Redaction());
  checks.sent(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"x"}}\n[{"jsonrpc":"2.0","id":"b","met'));
  checks.sent(Buffer.from('hod":"graph/get"}]\n'));
  const read = (text) => checks.received(parseExact(text));
  assert.deepEqual(read('{"jsonrpc":"2.0","id":1,"result":"ok"}'), []);
  assert.deepEqual(read('[{"jsonrpc":"2.0","id":"b","error":{"code":-32001,"message":"m","data":{"kind":"UnknownPath"}}}]'), []);
  assert.deepEqual(read('{"jsonrpc":"2.0","id":1,"result":"again"}'), ['id 1 answers no pending request']);
  assert.deepEqual(read('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m","data":{"kind":"ParseError"}}}'), []);
  assert.deepEqual(read('{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":1,"version":2,"changes":[]}}'), []);
  assert.deepEqual(read('{"jsonrpc":"2.0","method":"graph/didChanged","params":{}}'), ['"graph/didChanged" is not a notification of protocol 1']);
  assert.deepEqual(read('{"jsonrpc":"1.0","id":null,"result":1,"error":{"code":-31000,"message":1}}'), [
    '"jsonrpc" must be "2.0"',
    'a response has exactly one of result and error',
    'error code -31000 is not one JSON-RPC 2.0 and Milieu allow',
    'an error has a message, a string',
    'an error has data with a kind (SPEC §3.1)',
  ]);
  assert.deepEqual(read('[]'), ['an empty array: a batch response has at least one element']);
});

test('wire checks: no secure value leaves the daemon', () => {
  const redaction = new Redaction();
  redaction.learnTypes([{ name: 'Login', properties: [{ name: 'email', secure: false }, { name: 'password', secure: true }] }]);
  const checks = new WireChecks(redaction);
  checks.sent(Buffer.from('{"jsonrpc":"2.0","method":"schema/register","params":{"types":[{"name":"Vault","style":"observable","properties":{"pin":{"type":"string","secure":true}}}]}}\n'));
  checks.sent(Buffer.from('{"jsonrpc":"2.0","method":"graph/set","params":{"path":"login.password","value":"hunter22"}}\n'));
  const leaks = (text) => redaction.problems(parseExact(text));
  assert.deepEqual(leaks('{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":1,"version":2,"changes":[{"path":"login.password","redacted":true},{"path":"v.pin","redacted":true}]}}'), []);
  assert.deepEqual(leaks('{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":1,"version":2,"changes":[{"path":"Vault#4.pin","value":"1234"}]}}'), [
    'graph/didChange shows the value of secure Vault#4.pin',
  ]);
  assert.deepEqual(leaks('{"object":"Login#3","type":"Login","version":2,"values":{"email":"","password":"x"},"redacted":[]}'), ['the snapshot of Login#3 shows secure property password']);
  assert.deepEqual(leaks('{"jsonrpc":"2.0","id":1,"result":["body: hunter22!"]}'), ['a secret written to a secure property appears: "body: hunter22!"']);
});
