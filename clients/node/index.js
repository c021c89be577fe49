// milieu: the Node.js client of milieud. See README.md.

export { connect, Client } from './lib/client.js';
export { Watch } from './lib/watch.js';
export { ops, expr } from './lib/ops.js';
export { double, Double } from './lib/json.js';
export { resolveSocketPath } from './lib/socket-path.js';
export { translate, TranslationError } from './lib/translate.js';
export {
  MilieuError,
  ProtocolError,
  ConnectionLost,
  TimeoutError,
  EnvironmentObjectMissing,
  UnknownPath,
  UnknownType,
  UnknownAction,
  TypeMismatch,
  ReadOnly,
  VersionConflict,
  DuplicateView,
  InvalidDeclaration,
  InUse,
  MessageTooLarge,
  Forbidden,
  InvalidValue,
  Compacted,
  LimitExceeded,
  ResultTooLarge,
} from './lib/errors.js';
