// Compiled by declarations.test.js with tsc --strict: a check on `method` narrows a Notification
// to its own params (issue #30, item 13: a catch-all member left them unknown).
import type { Notification, UnknownPath } from '../../index.js';

export function bodyOf(notification: Notification): string[] | undefined {
  if (notification.method === 'view/didUpdate') return notification.params.body;
  if (notification.method === 'graph/didChange') return notification.params.changes.map((change) => change.path);
  return undefined;
}

export function suggested(error: UnknownPath): string[] | undefined {
  return error.suggestions;
}
