// Compiled by declarations.test.js with tsc --strict: a @Binding is a key path, into a value too,
// or a constant (SPEC §6.1); view/tree lists a constant one without a source.
import { expr } from '../../index.js';
import type { ViewDeclaration, ViewNode } from '../../index.js';

export const flag: ViewDeclaration = {
  parent: '/App/Screen',
  name: 'Flag',
  bindings: { on: expr.constant(true), name: expr.parent('user.name'), shown: { $constant: { $parent: 'shown' } } },
};

export function sourceOf(view: ViewNode, name: string): string | undefined {
  const binding = view.bindings[name];
  return binding && 'source' in binding ? binding.source : undefined;
}
