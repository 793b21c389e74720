/**
 * Which of the application's notification listeners ({@link ClientNotificationHandlers}) a server notification goes to.
 */
import type { JsonRpcNotification } from '@switchboard/jsonrpc';
import type { ProgressParams } from '../protocol/notifications.js';
import type { ClientNotificationHandlers, LogContext, LogMessageParams } from './options.js';

/** The {@link LogContext} of a log no request of ours is known for (one object for all). */
const UNTAGGED: LogContext = {};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which listener of {@link ClientNotificationHandlers} a notification goes to; `requestTag`: see {@link LogContext}. */
export function routeNotification(handlers: ClientNotificationHandlers, notification: JsonRpcNotification, requestTag?: unknown): void {
  const params = notification.params;
  switch (notification.method) {
    case 'notifications/message':
      if (isRecord(params)) handlers.message?.(params as unknown as LogMessageParams, requestTag === undefined ? UNTAGGED : { requestTag });
      return;
    case 'notifications/progress':
      if (isRecord(params)) handlers.progress?.(params as unknown as ProgressParams);
      return;
    case 'notifications/tools/list_changed':
      handlers.toolsListChanged?.();
      return;
    case 'notifications/resources/list_changed':
      handlers.resourcesListChanged?.();
      return;
    case 'notifications/prompts/list_changed':
      handlers.promptsListChanged?.();
      return;
    case 'notifications/resources/updated':
      if (isRecord(params) && typeof params.uri === 'string') handlers.resourceUpdated?.(params as { uri: string });
      return;
  }
}
