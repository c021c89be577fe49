// Type declarations of the milieu package (written by hand; keep them in step with lib/*.js).

import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';

// ---- JSON values

/** A JSON value as this client sends it: `Double` for an integral double, `bigint` for a 64-bit integer. */
export type JSONValue = null | boolean | number | bigint | string | Double | JSONValue[] | { [member: string]: JSONValue | undefined };

/** A number sent as a double: `double(1)` is written `1.0` (JavaScript would write `1`, an integer). */
export class Double {
  /** `text`: the number as it was read (`1.50`, `1e400`), written back as is; such a value may be out of range. */
  constructor(value: number, text?: string);
  readonly value: number;
  /** The number as it was read, when it was; `toString` writes it. */
  readonly text?: string;
  toString(): string;
}

/** Wraps a finite number so that it is sent as a double. */
export function double(value: number): Double;

// ---- Connecting

export interface ReconnectOptions {
  /** Milliseconds before the second attempt (the first is immediate); doubled each time. Default 50. */
  initialDelay?: number;
  /** The longest wait between attempts, in milliseconds. Default 2000. */
  maxDelay?: number;
  /** Attempts before giving up and closing. Default 30. */
  maxAttempts?: number;
}

export interface ConnectOptions {
  /** The socket; default `resolveSocketPath()`. */
  socketPath?: string;
  /** Default timeout of every call, in milliseconds; 0 for none. Default 30000. */
  timeout?: number;
  /** Reconnect when the connection drops (default true), with these delays; false to close instead. */
  reconnect?: boolean | ReconnectOptions;
  /** Sent in `initialize`. Default `{name: "milieu-node", version: <this package's>}`. */
  client?: { name: string; version?: string };
}

/** Connects to milieud and sends `initialize`. Rejects with `ConnectionLost` when nothing answers. */
export function connect(options?: ConnectOptions): Promise<Client>;
/** The same as `connect({socketPath})`. */
export function connect(socketPath: string): Promise<Client>;

/** The socket path, as milieud resolves it: `MILIEU_SOCKET`, `$XDG_RUNTIME_DIR/milieu/milieu.sock`, `/tmp/milieu-$UID/milieu.sock`. */
export function resolveSocketPath(env?: Record<string, string | undefined>, uid?: number): string;

export interface CallOptions {
  /** Milliseconds; 0 for none. Default the client's `timeout`. */
  timeout?: number;
  /** Aborting rejects the call with the signal's reason; the request may still be executed. */
  signal?: AbortSignal;
}

export interface SetOptions extends CallOptions {
  /** Write only if the target's version is this one (else `VersionConflict`). */
  ifVersion?: number;
}

export interface RegisterOptions extends CallOptions {
  /** Custom environment keys, each with its type and default (`EnvironmentKey.defaultValue`). */
  environmentKeys?: Record<string, EnvironmentKeyDeclaration>;
  /** A type takes the place of a registered one of its name (a built-in too), unless objects of it are alive. */
  replace?: boolean;
}

// ---- Results (SPEC §9)

export interface InitializeResult {
  server: { name: string; version: string };
  protocolVersion: '1';
  capabilities: { watch: boolean; transactions: boolean; lifecycle: boolean; resumableWatches: boolean; maxLineBytes: number; [name: string]: unknown };
  instance: string;
  version: number;
  /** Present only when the daemon, as it started, dropped something it keeps (SPEC §9.1). */
  restore?: RestoreReport;
  [member: string]: unknown;
}

/** What a daemon that keeps state brought back when it started, and what it dropped (SPEC §9.1, §12.3). */
export interface RestoreReport {
  types: number;
  views: number;
  values: number;
  /** The first 100 drops; a value of a dropped view is not listed again. */
  dropped: Array<{ kind: 'type' | 'environmentKey' | 'view' | 'value'; name: string; reason: string }>;
  droppedCount: number;
}

export interface PropertyInfo {
  name: string;
  type: string;
  computed: boolean;
  secure: boolean;
  /** Given for the stored properties of an `observableObject` type: false for a plain `var`, which announces nothing. */
  published?: boolean;
  default?: unknown;
  /** A reference whose object is made with its holder, of this type (`@Published var inner = Inner()`). */
  makes?: string;
  /** The holder announces whenever the object this reference holds does. */
  forwards?: true;
  oneOf?: unknown[];
  min?: number;
  max?: number;
  pattern?: string;
}

/** An environment key as `schema/types` lists it: built-in with SwiftUI's default, or declared (SPEC §9.2). */
export interface EnvironmentKeyInfo {
  name: string;
  type: string;
  default: unknown;
  builtIn: boolean;
  oneOf?: unknown[];
  min?: number;
  max?: number;
  pattern?: string;
}

export interface TypeInfo {
  name: string;
  style: 'observable' | 'observableObject';
  builtIn: boolean;
  properties: PropertyInfo[];
  /** `secureParams`: the parameters whose argument is a secret (keep a call that passes one out of logs and histories). */
  actions: { name: string; params: string[]; secureParams?: string[] }[];
}

/** A type in a declaration: `"int"`, `"[string]"`, `"@Profile?"`, or `{record: {...}}`, `{array: T}`, `{optional: T}` (SPEC §5.2). */
export type TypeSpec = string | { record: Record<string, TypeSpec> } | { array: TypeSpec } | { optional: TypeSpec };

/** A declared expression (SPEC §9.3.1): a literal, or a one-member object naming its operator. */
export type DeclaredExpression = null | boolean | number | string | { [operator: string]: unknown };

export interface TypeDeclaration {
  name: string;
  style: 'observable' | 'observableObject';
  properties?: Record<string, { type: TypeSpec; default?: JSONValue; secure?: boolean; published?: boolean; oneOf?: JSONValue[]; min?: number; max?: number; pattern?: string }>;
  computed?: Record<string, { type: TypeSpec; get: DeclaredExpression }>;
  actions?: Record<string, { parameters?: { name: string; type: TypeSpec }[]; steps: object[] }>;
}

/** A custom environment key (SPEC §9.3): seen by every view, so never secure. */
export interface EnvironmentKeyDeclaration {
  type: TypeSpec;
  /** What an unprovided key reads; without it, the type's zero value. */
  default?: JSONValue;
  oneOf?: JSONValue[];
  min?: number;
  max?: number;
  pattern?: string;
}

export interface RegisterResult {
  /** The type names registered, in order. */
  types: string[];
  /** The environment keys this call declared (one declared again the same way is not listed). */
  environmentKeys: string[];
  version: number;
}

export interface ObjectSnapshot {
  object: string;
  type: string;
  version: number;
  owner: string | null;
  values: Record<string, unknown>;
  redacted: string[];
}

export interface ViewNode {
  path: string;
  name: string;
  id?: string | number | boolean;
  version: number;
  /** How many times the body has been evaluated since the identity appeared, the mount included. */
  evaluations: number;
  /** The version whose commit last evaluated the body. */
  lastEvaluated: number;
  inputs: Record<string, unknown>;
  state: Record<string, unknown>;
  /** Each binding's source (with the members of a binding into a value, `/App/D.user.name`) and value; `constant: true` and no source for `.constant(v)`. */
  bindings: Record<string, { source: string; value?: unknown; redacted?: true } | { constant: true; value: unknown }>;
  /** `null` for an optional `@Environment(T.self)` that no ancestor provides. */
  objects: Record<string, { object: string; type: string; wrapper: ObjectWrapper } | null>;
  environment: Record<string, unknown>;
  provides: Provides;
  body: string[];
  retained: boolean;
  /** In mount order; absent at the depth limit, where `childCount` says how many there are. */
  children?: ViewNode[];
  /** How many children the view has, at the depth limit of `view/tree`. */
  childCount?: number;
}

/** A view in a page of `view/tree` (`limit` or `cursor`): without `children`, with its parent's path (null for the walk's first view). */
export interface PageNode extends Omit<ViewNode, 'children'> {
  parent: string | null;
}

/** A page of `view/tree`: views in pre-order; `nextCursor` unless it is the last page. */
export interface TreePage {
  nodes: PageNode[];
  nextCursor?: string;
  version: number;
}

/** One thing a view's last evaluation read (`view/dependencies`), by `kind`; places, never values. */
export type ViewDependency =
  | { kind: 'property'; path: string; object: string; property: string; reasons: string[] }
  | { kind: 'state'; path: string; view: string; variable: string; reasons: string[] }
  | { kind: 'object'; object: string; type: string; reasons: string[] }
  /** `provider` is null for the key's default. */
  | { kind: 'environment'; key: string; provider: string | null; reasons: string[] };

export interface DependenciesResult {
  path: string;
  /** In the order the evaluation read them. */
  dependencies: ViewDependency[];
  version: number;
}

/** A view a change would evaluate again (`graph/readers`), with the reasons it would give. */
export interface ViewReader {
  view: string;
  reasons: string[];
}

/** An object in a view's environment, and the nearest view that provides it. */
export interface ProvidedObject {
  type: string;
  object: string;
  provider: string;
}

/** `view/environment`: both object slots by type, and every environment key by name (`provider` null: the default). */
export interface EnvironmentResult {
  path: string;
  environmentObjects: ProvidedObject[];
  observables: ProvidedObject[];
  environment: { key: string; value: unknown; provider: string | null }[];
  version: number;
}

/** `graph/reset` (SPEC §9.22): what it did, or with `dryRun` would do. */
export interface ResetResult {
  version: number;
  unmounted: string[];
  remounted: string[];
  provided: string[];
  written: string[];
}

/** `daemon/info` (SPEC §9.20): `socket` is absent for an inherited socket, `dataDirectory` with `--ephemeral`. */
export interface DaemonInfo {
  server: { name: 'milieud'; version: string };
  protocolVersion: string;
  instance: string;
  pid: number;
  uptimeSeconds: number;
  socket?: string;
  dataDirectory?: string;
  durability: 'always' | 'everysec' | 'no' | 'ephemeral';
  version: number;
  oldestVersion: number;
  connections: number;
  watches: number;
  views: number;
  objects: number;
  memory: { residentBytes: number; bufferedOutputBytes: number; bufferedInputBytes: number };
  /** Absent with `--ephemeral`. */
  restore?: RestoreReport;
}

/** One connection of `daemon/clients` (SPEC §9.21): `self` is the one that asked; `views` those its close unmounts. */
export interface DaemonClient {
  connection: number;
  pid: number;
  uid: number;
  name?: string;
  self: boolean;
  connectedSeconds: number;
  watches: number;
  views: number;
  bufferedOutputBytes: number;
}

export interface TreeOptions extends CallOptions {
  /** Levels below the path to include (0: the view alone); default all. */
  depth?: number;
  /** Views per request, 1 to 10000; default 1000. */
  pageSize?: number;
}

/**
 * How a view holds an object: `stateObject`, `observedObject`, `environmentObject` (the
 * `ObservableObject` wrappers), `input` (a `let`), `state` (a `@State` holding an object),
 * `environment` (`@Environment(T.self)`); a later daemon may add others.
 */
export type ObjectWrapper = 'stateObject' | 'observedObject' | 'environmentObject' | 'input' | 'state' | 'environment' | (string & {});

/** What a view provides, by slot: `.environmentObject(x)` and `.environment(x)` objects by type name, `.environment(\.key, v)` values by key. */
export interface Provides {
  environmentObjects: Record<string, string>;
  observables: Record<string, string>;
  environment: Record<string, unknown>;
}

/** An expression in a declaration: a literal, `{$parent: keyPath}`, `{$input: name}`, `{$literal: value}` or `{$new: {type, init?}}` (see `expr`). */
export type Expression = JSONValue;

/** `{$new: {type, init?}}`: a new object, in `state` (`@State var x = T(...)`) or `inputs`; `init` values are literals, `$parent` or `$input`. */
export type NewObject = { $new: { type: string; init?: Record<string, Expression> } };

/** How a view reads the environment: `@Environment(\.key)` by key, or `@Environment(T.self)` an `@Observable` object (`optional` for `T?`). */
export type EnvironmentEntry = { key: string } | { type: string; optional?: boolean };

/** `.environmentObject(x)`, `.environment(x)`, `.environment(\.key, v)`: key paths of `ObservableObject` objects (`environmentObjects`) and of `@Observable` ones (`observables`); literal environment values. */
export interface EnvironmentModifiers {
  environmentObjects?: string[];
  observables?: string[];
  environment?: Record<string, JSONValue>;
}

/** A view declaration (SPEC §6.1), the params of `view/mount`. */
export interface ViewDeclaration {
  parent: string;
  name: string;
  id?: Expression;
  inputs?: Record<string, Expression>;
  state?: Record<string, Expression>;
  /** A `@State`'s Swift type (`@State var name: String? = "kim"` is `{name: 'string?'}`): a type string, or `{record}`, `{array}`, `{optional}` (SPEC §5.2). */
  stateTypes?: Record<string, TypeSpec>;
  /** `{$parent: keyPath}`: a parent's state, binding or object property, or a member inside its value (`'user.name'`, `'items.0'`); `{$constant: e}`: `.constant(v)`. */
  bindings?: Record<string, { $parent: string } | { $constant: Expression }>;
  /** `ObservableObject` types only; `eager` builds one at every evaluation of the parent and discards it. */
  stateObjects?: Record<string, { type: string; init?: Record<string, Expression>; eager?: boolean }>;
  /** `ObservableObject` types only. */
  observedObjects?: Record<string, { construct: string; init?: Record<string, Expression> } | { $parent: string } | { $input: string } | { object: string }>;
  /** `ObservableObject` types only. */
  environmentObjects?: Record<string, string>;
  /** Keys read into variables of the same name, or `{var: {key} | {type, optional?}}`. */
  environment?: string[] | Record<string, EnvironmentEntry>;
  /** The modifiers inside the view's body, on its content: its descendants see them, the view itself does not. */
  provide?: EnvironmentModifiers;
  /** The modifiers its parent's body applies where it places the view (`Child().environmentObject(x)`): the view and its descendants see them, its siblings do not; key paths are relative to the parent. */
  modifiers?: EnvironmentModifiers;
  /** Template lines and the view language's elements (SPEC §6.3): text, child views, if, forEach, let, controls, disabled, transformEnvironment, sheets. */
  body?: BodyElement[];
  retain?: boolean;
  /** `let _ = Self._printChanges()`: `true`, or the dynamic properties in the struct's order (SPEC §6.6). */
  printChanges?: boolean | string[];
  /** `.equatable()`: the inputs and bindings the view's `==` compares (SPEC §6.1). */
  equatable?: string[];
}

/** What `translate()` makes of SwiftUI source, or a scene file's JSON (SPEC §1.7). */
export interface Scene {
  types?: TypeDeclaration[];
  environmentKeys?: Record<string, unknown>;
  views?: ViewDeclaration[];
  description?: string;
  /** From `translate()`: its warnings and notes, as the compiler writes them. */
  diagnostics?: string[];
}

/** The Swift files as one scene, by `milieu translate` (`options.milieu`, default `$MILIEU`, else `milieu` on the PATH). */
export function translate(files: string[], options?: { milieu?: string; timeout?: number }): Promise<Scene>;

/** The source cannot be loaded; `diagnostics` say why, as the compiler writes them. */
export class TranslationError extends MilieuError {
  diagnostics: string[];
}

/** One element of a body (SPEC §6.3); the daemon checks each form's members. */
export type BodyElement = string | { [form: string]: unknown };

/** One control of `view/controls` (SPEC §9.23): a bound one's `value`, or `redacted` for a secure field. */
export interface Control {
  kind: 'button' | 'textField' | 'secureField' | 'toggle' | 'stepper' | 'picker' | 'navigationLink';
  label: string;
  disabled: boolean;
  value?: unknown;
  redacted?: true;
  options?: unknown[];
  range?: [number, number];
}

export interface MountResult {
  path: string;
  body: string[];
  objects: Record<string, string>;
  version: number;
}

/** What made a commit: a request (its method, connection and what each op named), or `connection/closed`. */
export interface CommitCause {
  method: string;
  connection: number;
  pid?: number;
  client?: string;
  ops: { method: string; path?: string }[];
  /** How many more ops a transaction had than `ops` lists (the daemon keeps the first 16). */
  moreOps?: number;
}

/** A node of a commit's cause-and-effect graph: `id`, `kind` and the members of its kind (SPEC §9.19). */
export interface ExplainNode {
  id: string;
  kind: 'cause' | 'attribute' | 'view' | 'effect';
  [member: string]: unknown;
}

export interface ExplainEdge {
  from: string;
  to: string;
  kind: 'wrote' | 'invalidated' | 'parent' | 'caused';
  reason?: string;
}

/** `graph/explain`: `cause` is null when the daemon no longer knows it (a commit read back after a restart). */
export interface ExplainResult {
  version: number;
  cause: CommitCause | null;
  nodes: ExplainNode[];
  edges: ExplainEdge[];
}

/** What `view/provide` changes: key paths of `ObservableObject` and `@Observable` objects, environment values, and names to withdraw. */
export interface Provision {
  /** `.environmentObject(x)`: key paths of `ObservableObject` objects, read with `@EnvironmentObject`. */
  environmentObjects?: string[];
  /** `.environment(x)`: key paths of `@Observable` objects, read with `@Environment(T.self)`. */
  observables?: string[];
  /** `.environment(\.key, v)`: literal values of declared keys. */
  environment?: Record<string, JSONValue>;
  /** Type names and keys to stop providing. */
  withdraw?: string[];
}

export interface Op {
  method: 'graph/set' | 'graph/call' | 'view/mount' | 'view/unmount' | 'view/provide';
  params: object;
}

/** Builders of transaction ops. */
export const ops: {
  set(path: string, value: JSONValue, options?: { ifVersion?: number }): Op;
  call(path: string, ...args: JSONValue[]): Op;
  mount(declaration: ViewDeclaration): Op;
  unmount(path: string): Op;
  provide(path: string, provision: Provision): Op;
};

/** Builders of declaration expressions (SPEC §6.2). */
export const expr: {
  parent(keyPath: string): { $parent: string };
  /** `.constant(v)` for a `@Binding`: reads `value`; a write through it is `Forbidden` (reason `constant`). */
  constant(value: Expression): { $constant: Expression };
  input(name: string): { $input: string };
  literal(value: JSONValue): { $literal: JSONValue };
  'new'(type: string, init?: Record<string, Expression>): NewObject;
  /** A closure a parent passes to an input of a view in its body; its steps run in the parent (SPEC §6.2). */
  closure(steps: Array<Record<string, unknown>>, params?: string[]): { $closure: { params?: string[]; steps: Array<Record<string, unknown>> } };
};

export interface WatchParams {
  paths?: string[];
  views?: string[];
  lifecycle?: boolean;
  /** Every commit with what made it: 'didCommit' (SPEC §10.9), as `milieu monitor` shows them. */
  commits?: boolean;
  /** Every view notification carries `printChanges`, the line `Self._printChanges()` would print, declared or not (SPEC §9.12). */
  printChanges?: boolean;
  /** Replay what happened after this version first (SPEC §11.4). */
  sinceVersion?: number;
}

export interface BatchCall {
  method: string;
  params?: object;
  /** Send without id: executed, never answered; its entry in the result is fulfilled with undefined. */
  notification?: boolean;
}

// ---- Notifications (SPEC §10)

export type Change = { path: string; value: unknown } | { path: string; redacted: true };

export interface DidChangeParams { watch: number; version: number; changes: Change[] }
/** `printChanges`: the line `Self._printChanges()` prints, for a view that declares it (SPEC §6.6) or for every view of a watch made with `printChanges: true`. */
export interface DidUpdateParams { watch: number; version: number; path: string; reasons: string[]; body: string[]; printChanges?: string }
export interface DidMountParams { watch: number; version: number; path: string; reason: 'mounted' | 'identity' | 'condition' | 'row' | 'presented' | (string & {}); body: string[]; printChanges?: string }
export interface DidUnmountParams { watch: number; version: number; path: string; reason: 'unmounted' | 'identity' | 'connectionClosed' | 'parentUnmounted' | 'condition' | 'row' | 'dismissed' | (string & {}) }
/** `stateObject`, `state` (a `@State` `$new`), `construct`, `stateInitial` (made and discarded at once), `identity`, `app`. */
export type CreationReason = 'stateObject' | 'state' | 'construct' | 'stateInitial' | 'identity' | 'app' | (string & {});
/** `replaced`, `discarded` (a `stateInitial` object), `ownerUnmounted`, `identity`, `released`. */
export type DestructionReason = 'replaced' | 'discarded' | 'ownerUnmounted' | 'identity' | 'released' | (string & {});
export interface ObjectLifecycleParams { watch: number; version: number; object: string; type: string; owner: string | null; reason: CreationReason | DestructionReason }
export interface ObjectCreatedParams extends ObjectLifecycleParams { reason: CreationReason }
/** `endedTargets`: this watch's key path targets (as given) that resolved to the object and cover nothing now. */
export interface ObjectDestroyedParams extends ObjectLifecycleParams { reason: DestructionReason; endedTargets?: string[] }
export interface DidCommitParams {
  watch: number;
  version: number;
  /** null when the daemon no longer knows (a commit read back from its log after a restart). */
  cause: CommitCause | null;
  counts: { values: number; rendered: number; mounted: number; unmounted: number; objectsCreated: number; objectsDestroyed: number; diagnostics: number };
}
export interface DiagnosticParams {
  watch: number;
  version: number;
  kind: 'StateObjectInitIgnored' | string;
  message: string;
  path: string;
  variable?: string;
  ignored?: Record<string, unknown>;
  hint?: string;
}

/** How a watch was made afresh after a reconnection (its earlier notifications may be stale). */
export type ResyncParams =
  | { reason: 'compacted'; oldest: number; version: number }
  | { reason: 'restarted'; instance: string; version: number };

export type Notification =
  | { method: 'graph/didChange'; params: DidChangeParams }
  | { method: 'view/didUpdate'; params: DidUpdateParams }
  | { method: 'view/didMount'; params: DidMountParams }
  | { method: 'view/didUnmount'; params: DidUnmountParams }
  | { method: 'object/didCreate'; params: ObjectCreatedParams }
  | { method: 'object/didDestroy'; params: ObjectDestroyedParams }
  | { method: 'diagnostic'; params: DiagnosticParams }
  | { method: 'graph/didCommit'; params: DidCommitParams };

/** What a Watch's async iterator yields: a daemon notification, or a resync marker. */
export type WatchItem = Notification | { method: 'resync'; params: ResyncParams };

/**
 * The notifications of one watch, in version order, none twice and none skipped, across
 * reconnections (resumed with sinceVersion; or made afresh with 'resync').
 */
export class Watch extends EventEmitter implements AsyncIterable<WatchItem> {
  private constructor();
  /** The daemon's id of this watch on the current connection (changes on reconnection). */
  readonly id: number;
  /** The targets it was made with, without sinceVersion. */
  readonly params: Readonly<Omit<WatchParams, 'sinceVersion'>>;
  /** The view targets no view was mounted at when it was last made: it delivers for them once one is. */
  readonly notMounted: readonly string[];
  /** The latest version delivered or covered. */
  readonly version: number;
  /** True once unwatched or its client closed. */
  readonly ended: boolean;
  unwatch(): Promise<object>;
  [Symbol.asyncIterator](): AsyncIterableIterator<WatchItem>;

  on(event: 'didChange', listener: (params: DidChangeParams) => void): this;
  on(event: 'didUpdate', listener: (params: DidUpdateParams) => void): this;
  on(event: 'didMount', listener: (params: DidMountParams) => void): this;
  on(event: 'didUnmount', listener: (params: DidUnmountParams) => void): this;
  on(event: 'objectCreated', listener: (params: ObjectCreatedParams) => void): this;
  on(event: 'objectDestroyed', listener: (params: ObjectDestroyedParams) => void): this;
  on(event: 'diagnostic', listener: (params: DiagnosticParams) => void): this;
  on(event: 'didCommit', listener: (params: DidCommitParams) => void): this;
  on(event: 'notification', listener: (notification: Notification) => void): this;
  on(event: 'resync', listener: (params: ResyncParams) => void): this;
  on(event: 'end', listener: (error?: MilieuError) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'didChange', listener: (params: DidChangeParams) => void): this;
  once(event: 'didUpdate', listener: (params: DidUpdateParams) => void): this;
  once(event: 'didMount', listener: (params: DidMountParams) => void): this;
  once(event: 'didUnmount', listener: (params: DidUnmountParams) => void): this;
  once(event: 'objectCreated', listener: (params: ObjectCreatedParams) => void): this;
  once(event: 'objectDestroyed', listener: (params: ObjectDestroyedParams) => void): this;
  once(event: 'diagnostic', listener: (params: DiagnosticParams) => void): this;
  once(event: 'didCommit', listener: (params: DidCommitParams) => void): this;
  once(event: 'notification', listener: (notification: Notification) => void): this;
  once(event: 'resync', listener: (params: ResyncParams) => void): this;
  once(event: 'end', listener: (error?: MilieuError) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

// ---- The client

export class Client extends EventEmitter {
  /** Use `connect()`. */
  private constructor();
  readonly socketPath: string;
  readonly state: 'connecting' | 'open' | 'reconnecting' | 'closed';
  /** The current socket, or null between connections (for diagnostics and tests). */
  readonly socket: Socket | null;
  readonly server: InitializeResult['server'] | undefined;
  readonly capabilities: InitializeResult['capabilities'] | undefined;
  /** The daemon instance's id: the same across restarts of a daemon that keeps state, for as long as its versions continue. */
  readonly instance: string | undefined;
  /** What the daemon could not restore when it started, from `initialize`; undefined when it dropped nothing. */
  readonly restore: RestoreReport | undefined;

  initialize(params?: { client?: { name: string; version?: string }; protocolVersion?: string }, options?: CallOptions): Promise<InitializeResult>;
  // types … discover: made from REQUESTS in lib/client.js (test/declarations.test.js checks that each is declared here).
  types(options?: CallOptions): Promise<{ types: TypeInfo[]; environmentKeys: EnvironmentKeyInfo[] }>;
  /** Types, and custom environment keys in `options.environmentKeys` (`register([], {environmentKeys})` for keys alone). */
  register(types?: TypeDeclaration[], options?: RegisterOptions): Promise<RegisterResult>;
  /** A value, an object snapshot (`ObjectSnapshot`) or a view snapshot (a `ViewNode` without children). */
  get(path: string, options?: CallOptions): Promise<any>;
  set(path: string, value: JSONValue, options?: SetOptions): Promise<{ version: number }>;
  /** Runs an action; for a timeout or a signal, use `request('graph/call', {path, args}, options)`. */
  call(path: string, ...args: JSONValue[]): Promise<{ result: unknown; version: number }>;
  transaction(ops: Op[], options?: CallOptions): Promise<{ results: any[]; version: number }>;
  mount(declaration: ViewDeclaration, options?: CallOptions): Promise<MountResult>;
  unmount(path: string, options?: CallOptions): Promise<{ version: number }>;
  provide(path: string, provision: Provision, options?: CallOptions): Promise<{ version: number }>;
  /** The tree from `path`, fetched a page at a time by following cursors and put together. */
  tree(path?: string, options?: TreeOptions): Promise<{ root: ViewNode; version: number }>;
  /** What the view's last body evaluation read, each with the reasons a change to it gives (SPEC §9.16). */
  dependencies(path: string, options?: CallOptions): Promise<DependenciesResult>;
  /** The views a change of the key path would evaluate again, parents first, with their reasons (SPEC §9.17). */
  readers(path: string, options?: CallOptions): Promise<{ readers: ViewReader[]; version: number }>;
  /** What the view's environment holds, each with the view that provides it (SPEC §9.18). */
  environment(path: string, options?: CallOptions): Promise<EnvironmentResult>;
  /**
   * The graph back to its scene's start, as one transaction: every view clients mounted goes (retained ones
   * too), the scene's views, what they provide and their values as they began; `dryRun` only says what it would do.
   */
  reset(options?: CallOptions & { dryRun?: boolean }): Promise<ResetResult>;
  /** A scene (from `translate()`, or a scene file): its types registered in the place of any of the same name, its views mounted, retained. */
  load(scene: Scene, options?: CallOptions): Promise<{ types: string[]; views: string[]; version: number | null }>;
  /** The view's controls in body order, with labels, whether each is disabled and what a bound one holds (SPEC §9.23). */
  controls(path: string, options?: CallOptions): Promise<{ path: string; controls: Control[]; version: number }>;
  /** Presses the button (or navigation link) labelled `label`; its action is one transaction (SPEC §9.24). */
  tap(path: string, label: string, options?: CallOptions): Promise<{ version: number }>;
  /** Types into a field, or sets a toggle, stepper or picker, through its binding (SPEC §9.25). */
  input(path: string, label: string, value: JSONValue, options?: CallOptions): Promise<{ version: number }>;
  /** What the daemon is and holds: build, uptime, socket, data directory, durability, counts, memory (SPEC §9.20). */
  daemonInfo(options?: CallOptions): Promise<DaemonInfo>;
  /** Every connection the daemon serves, in the order they connected (SPEC §9.21). */
  daemonClients(options?: CallOptions): Promise<{ clients: DaemonClient[] }>;
  discover(options?: CallOptions): Promise<Record<string, unknown>>;
  /** The cause and effect of commit `version`: what made it, what it changed, the views it evaluated and why. */
  explain(version: number, options?: CallOptions): Promise<ExplainResult>;
  watch(params: WatchParams, options?: CallOptions): Promise<Watch>;
  unwatch(watch: Watch | number, options?: CallOptions): Promise<object>;
  /** Stops the daemon, then closes this client. */
  shutdown(options?: CallOptions): Promise<object>;
  /** Any request; rejects with the typed error, `TimeoutError`, the signal's reason or `ConnectionLost`. */
  request(method: string, params?: object, options?: CallOptions): Promise<any>;
  /** A request without id: executed, never answered. Throws `ConnectionLost` when closed. */
  notify(method: string, params?: object): void;
  /** One JSON-RPC batch; settles like `Promise.allSettled`, one entry per call, in order. */
  batch(calls: BatchCall[], options?: CallOptions): Promise<PromiseSettledResult<any>[]>;
  close(): Promise<void>;
  /** `await using client = await connect()`: closes the client when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;

  on(event: 'disconnect', listener: (error: ConnectionLost) => void): this;
  on(event: 'reconnect', listener: (info: { attempt: number; instance: string; restarted: boolean; restore: RestoreReport | undefined }) => void): this;
  on(event: 'close', listener: (error?: MilieuError) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'disconnect', listener: (error: ConnectionLost) => void): this;
  once(event: 'reconnect', listener: (info: { attempt: number; instance: string; restarted: boolean; restore: RestoreReport | undefined }) => void): this;
  once(event: 'close', listener: (error?: MilieuError) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

// ---- Errors (SPEC §2.4, §3.2)

export class MilieuError extends Error {
  constructor(message: string, details?: { code?: number | null; data?: object; cause?: unknown });
  /** The JSON-RPC error code; null for errors the client makes (ConnectionLost, TimeoutError). */
  readonly code: number | null;
  /** `error.data` as the daemon sent it. */
  readonly data: { kind?: string; [member: string]: unknown };
  /** `data.kind`: the stable name to branch on. */
  readonly kind: string | null;
}

/** The standard JSON-RPC errors: ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError. */
export class ProtocolError extends MilieuError {
  readonly reason?: string;
  /** A JSON Pointer into the params (InvalidParams). */
  readonly field?: string;
  /** The unknown method (MethodNotFound). */
  readonly method?: string;
  /** The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2). */
  readonly suggestions?: string[];
}

// `op`: the index of the failing op, when a graph/transaction failed because of one op.

export class EnvironmentObjectMissing extends MilieuError {
  readonly type: string;
  readonly view: string;
  readonly variable: string;
  readonly searched: string[];
  readonly hint: string;
  readonly op?: number;
}
export class UnknownPath extends MilieuError {
  readonly path: string;
  readonly resolved?: string;
  /** The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2). */
  readonly suggestions?: string[];
  readonly op?: number;
}
export class UnknownType extends MilieuError {
  readonly type: string;
  /** The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2). */
  readonly suggestions?: string[];
  readonly op?: number;
}
export class UnknownAction extends MilieuError {
  readonly path: string;
  readonly action: string;
  readonly type: string;
  /** The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2). */
  readonly suggestions?: string[];
  readonly op?: number;
}
export class TypeMismatch extends MilieuError {
  readonly path: string;
  readonly expected: string;
  readonly actual: string;
  readonly op?: number;
}
export class ReadOnly extends MilieuError {
  readonly path: string;
  readonly reason: string;
  readonly op?: number;
}
export class VersionConflict extends MilieuError {
  readonly path: string;
  readonly expected: number;
  readonly actual: number;
  readonly op?: number;
}
export class DuplicateView extends MilieuError {
  readonly path: string;
  readonly op?: number;
}
export class InvalidDeclaration extends MilieuError {
  readonly field: string;
  readonly reason: string;
  readonly view?: string;
  readonly op?: number;
}
export class InUse extends MilieuError {
  readonly provided: string;
  readonly view: string;
  readonly dependents: string[];
  readonly op?: number;
}
export class MessageTooLarge extends MilieuError {
  readonly limit: number;
}
export class Forbidden extends MilieuError {
  readonly reason: string;
  readonly path?: string;
  readonly op?: number;
}
export class InvalidValue extends MilieuError {
  readonly path: string;
  readonly constraint: string;
  readonly value?: unknown;
  readonly redacted?: true;
  readonly op?: number;
}
export class Compacted extends MilieuError {
  readonly oldest: number;
}
export class LimitExceeded extends MilieuError {
  readonly limit: string;
  readonly max: number;
  readonly op?: number;
}
/** The response would pass the connection's output hard limit, so it was not sent; the connection goes on. */
export class ResultTooLarge extends MilieuError {
  readonly method: string;
  readonly size: number;
  readonly limit: number;
  readonly hint: string;
}

/** The connection closed, or could not be made, before a response came; `cause` says why, if known. */
export class ConnectionLost extends MilieuError {
  constructor(message?: string, cause?: unknown);
  readonly code: null;
}

/** No response within the call's timeout; the request may still be executed. */
export class TimeoutError extends MilieuError {
  constructor(method: string, timeout: number);
  readonly code: null;
  readonly method: string;
  readonly timeout: number;
}
