// Typed errors: one class per error kind of SPEC §2.4 and §3.2, plus the client's own.

/**
 * Any error a Milieu call fails with. `code`, `message` and `data` are the
 * JSON-RPC error's; `kind` is `data.kind`, the stable name to branch on.
 * Errors the client makes itself (`ConnectionLost`, `TimeoutError`) have
 * `code` null.
 */
export class MilieuError extends Error {
  /**
   * @param {string} message
   * @param {{code?: number | null, data?: object, cause?: unknown}} [details]
   */
  constructor(message, { code = null, data = {}, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.data = data;
    this.kind = typeof data.kind === 'string' ? data.kind : null;
    for (const field of new.target.fields ?? []) {
      if (field in data) this[field] = data[field];
    }
  }

  /** The `data` members copied onto the error as properties. */
  static fields = [];
}

/** The standard JSON-RPC errors: ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError. */
export class ProtocolError extends MilieuError {
  static fields = ['reason', 'field', 'method', 'suggestions'];
}

/** Defines the class of one Milieu error kind, with the `data` fields it exposes. */
function kind(name, fields) {
  const errorClass = { [name]: class extends MilieuError {} }[name];
  errorClass.fields = fields;
  return errorClass;
}

export const EnvironmentObjectMissing = kind('EnvironmentObjectMissing', ['type', 'view', 'variable', 'searched', 'hint', 'op']);
export const UnknownPath = kind('UnknownPath', ['path', 'resolved', 'suggestions', 'op']);
export const UnknownType = kind('UnknownType', ['type', 'suggestions', 'op']);
export const UnknownAction = kind('UnknownAction', ['path', 'action', 'type', 'suggestions', 'op']);
export const TypeMismatch = kind('TypeMismatch', ['path', 'expected', 'actual', 'op']);
export const ReadOnly = kind('ReadOnly', ['path', 'reason', 'op']);
export const VersionConflict = kind('VersionConflict', ['path', 'expected', 'actual', 'op']);
export const DuplicateView = kind('DuplicateView', ['path', 'op']);
export const InvalidDeclaration = kind('InvalidDeclaration', ['field', 'reason', 'view', 'op']);
export const InUse = kind('InUse', ['provided', 'view', 'dependents', 'op']);
export const MessageTooLarge = kind('MessageTooLarge', ['limit']);
export const Forbidden = kind('Forbidden', ['reason', 'path', 'op']);
export const InvalidValue = kind('InvalidValue', ['path', 'constraint', 'value', 'redacted', 'op']);
export const Compacted = kind('Compacted', ['oldest']);
export const LimitExceeded = kind('LimitExceeded', ['limit', 'max', 'op']);
/** The response would pass the output hard limit, so it was not sent; the connection goes on. */
export const ResultTooLarge = kind('ResultTooLarge', ['method', 'size', 'limit', 'hint']);

/**
 * The connection closed, or could not be made, before a response came. A
 * request that was sent may or may not have been executed. `cause` is the
 * daemon's last word when it sent one (a `MessageTooLarge` or a refused peer),
 * else the socket error, if any.
 */
export class ConnectionLost extends MilieuError {
  constructor(message = 'The connection to milieud was lost', cause) {
    super(message, { data: { kind: 'ConnectionLost' }, cause });
  }
}

/** No response came within the call's timeout; the request may still be executed. */
export class TimeoutError extends MilieuError {
  /** @param {string} method @param {number} timeout milliseconds */
  constructor(method, timeout) {
    super(`${method} got no response within ${timeout} ms`, { data: { kind: 'Timeout' } });
    this.method = method;
    this.timeout = timeout;
  }
}

const byCode = new Map([
  [-32000, EnvironmentObjectMissing], [-32001, UnknownPath], [-32002, UnknownType], [-32003, UnknownAction],
  [-32004, TypeMismatch], [-32005, ReadOnly], [-32006, VersionConflict], [-32007, DuplicateView],
  [-32008, InvalidDeclaration], [-32009, InUse], [-32010, MessageTooLarge], [-32011, Forbidden],
  [-32012, InvalidValue], [-32013, Compacted], [-32014, LimitExceeded], [-32015, ResultTooLarge],
]);
const byKind = new Map([...byCode.values()].map((errorClass) => [errorClass.name, errorClass]));

/**
 * The typed error for a JSON-RPC error object: by `data.kind`, else — for a
 * kind this client does not know — by `code` (SPEC §15.2).
 * @param {{code: number, message: string, data?: object}} error
 */
export function errorFromWire(error) {
  const code = error.code;
  const data = error.data !== null && typeof error.data === 'object' ? error.data : {};
  let errorClass = byKind.get(data.kind) ?? byCode.get(code);
  if (errorClass === undefined) errorClass = code >= -32768 && code <= -32100 ? ProtocolError : MilieuError;
  return new errorClass(String(error.message), { code, data });
}
