// Builders for the ops of `graph/transaction` (SPEC §9.7).

/** The ops a transaction can hold, each `{method, params}` as the method takes alone. */
export const ops = Object.freeze({
  set: (path, value, { ifVersion } = {}) => ({
    method: 'graph/set',
    params: ifVersion === undefined ? { path, value } : { path, value, ifVersion },
  }),
  call: (path, ...args) => ({ method: 'graph/call', params: { path, args } }),
  mount: (declaration) => ({ method: 'view/mount', params: declaration }),
  unmount: (path) => ({ method: 'view/unmount', params: { path } }),
  provide: (path, provision) => ({ method: 'view/provide', params: { path, ...provision } }),
});
