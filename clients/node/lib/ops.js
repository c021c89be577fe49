// Builders for the ops of `graph/transaction` (SPEC §9.7) and for the expressions of view declarations (SPEC §6.2).

/** The ops a transaction can hold, each `{method, params}` as the method takes alone. */
export const ops = Object.freeze({
  set: (path, value, { ifVersion } = {}) => ({
    method: 'graph/set',
    params: ifVersion === undefined ? { path, value } : { path, value, ifVersion },
  }),
  call: (path, ...args) => ({ method: 'graph/call', params: { path, args } }),
  mount: (declaration) => ({ method: 'view/mount', params: declaration }),
  unmount: (path) => ({ method: 'view/unmount', params: { path } }),
  /** `provision`: `{environmentObjects?, observables?, environment?, withdraw?}`. */
  provide: (path, provision) => ({ method: 'view/provide', params: { path, ...provision } }),
});

/**
 * The expressions of a view declaration's `id`, `inputs`, `state` and `init` values.
 * `expr.new('Counter', { count: 3 })` in `state` is `@State var x = Counter(count: 3)`, the way
 * to own an `@Observable` object; in `inputs`, a parent passing `Counter(count: 3)` to a `let`.
 * In `bindings`: `expr.parent('user.name')` is `$user.name`, `expr.constant(true)` is `.constant(true)`.
 */
export const expr = Object.freeze({
  parent: (keyPath) => ({ $parent: keyPath }),
  constant: (value) => ({ $constant: value }),
  input: (name) => ({ $input: name }),
  literal: (value) => ({ $literal: value }),
  new: (type, init) => ({ $new: init === undefined ? { type } : { type, init } }),
  /** `Row(onTap: { taps += 1 })` in a body: a closure whose steps run in the parent (SPEC §6.2). */
  closure: (steps, params) => ({ $closure: params?.length ? { params, steps } : { steps } }),
});
