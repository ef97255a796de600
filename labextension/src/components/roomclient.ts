/** The client of the room a component is drawn in, for what an entry of its transcript asks of
 * the server (a checkpoint's diff and revert, an attachment's image): the room's own routes, never
 * main's, in whichever room the panel or a thread's panel shows. */
import { createContext, useContext } from 'react';

import { IRoomClient } from '../api';

export const RoomClientContext = createContext<IRoomClient | null>(null);

/** The room's client; drawn outside a `Room` is a bug, said at once rather than sent to main. */
export function useRoomClient(): IRoomClient {
  const client = useContext(RoomClientContext);
  if (client === null) {
    throw new Error('A room entry is drawn outside its room (no RoomClientContext).');
  }
  return client;
}
