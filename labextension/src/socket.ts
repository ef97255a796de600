/**
 * The room's websocket (y-websocket's provider, read-only: the panel never writes the document).
 * Reconnections are the connection's (`connection.ts`), each with a fresh document.
 */
import { ServerConnection } from '@jupyterlab/services';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

import { documentSocket } from './api';
import { IDocumentProvider, ProviderFactory } from './connection';

/** The document provider of the room `room` (`copilot-room/ws/<room>`). */
export function websocketProvider(
  settings: ServerConnection.ISettings,
  room: string
): ProviderFactory {
  return (doc: Y.Doc): IDocumentProvider => {
    const { url, roomSegment, params } = documentSocket(settings, room);
    const provider = new WebsocketProvider(url, roomSegment, doc, {
      params,
      disableBc: true,
      shouldReconnect: () => false
    });
    provider.awareness.setLocalState(null);
    return provider;
  };
}
