// SwiftUI source as a scene: `milieu translate` (the REPL binary) reads it with Apple's parser
// and prints the declarations; `client.load(scene)` loads them.

import { execFile } from 'node:child_process';
import { MilieuError } from './errors.js';

/** The source cannot be loaded; `diagnostics` are the compiler-style lines that say why. */
export class TranslationError extends MilieuError {
  constructor(diagnostics) {
    super(`the Swift source cannot be loaded:\n${diagnostics.join('\n')}`, { data: { diagnostics, kind: 'Translation' } });
    this.diagnostics = diagnostics;
  }
}

/**
 * The scene the Swift files make together (`{types, views}`), its warnings and notes in
 * `scene.diagnostics`. `options.milieu` is the binary (default `$MILIEU`, else `milieu` on the
 * PATH). Rejects with `TranslationError` when the source has an error.
 */
export function translate(files, { milieu = process.env.MILIEU || 'milieu', timeout = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(milieu, ['translate', ...files], { timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const diagnostics = stderr.split('\n').filter((line) => line.length > 0);
      if (error && error.code === 1) return reject(new TranslationError(diagnostics));
      if (error) return reject(error);
      const scene = JSON.parse(stdout);
      scene.diagnostics = diagnostics;
      resolve(scene);
    });
  });
}
