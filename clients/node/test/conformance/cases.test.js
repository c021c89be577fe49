// Runs every conformance case of the repository (protocol/conformance/cases/**/*.jsonl), one test each,
// each against a fresh milieud. A failure here is the daemon (or the case) disagreeing with the SPEC.
import { test } from 'node:test';
import path from 'node:path';
import { DEFAULT_ROOT, findCases, runCase } from '../../conformance.js';
import { MILIEUD } from '../../testing/helpers.js';

const files = findCases(path.join(DEFAULT_ROOT, 'cases'));

if (files.length === 0) {
  test('conformance cases', { skip: `no case files under ${path.join(DEFAULT_ROOT, 'cases')}` }, () => {});
}

for (const file of files) {
  test(path.relative(path.join(DEFAULT_ROOT, 'cases'), file), MILIEUD ? {} : { skip: 'no milieud: set MILIEUD' }, async () => {
    const result = await runCase(file, { milieud: MILIEUD });
    if (!result.ok) throw new Error(`${result.line === undefined ? '' : `step ${result.step} (line ${result.line}): `}${result.error}`);
  });
}
