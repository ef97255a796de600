/**
 * When the room's agent may not start yet (`held`): the server runs only
 * `max_active_rooms` rooms' agents at once, and says how many run and when this room's prompt
 * starts. Shown in words under the header, not only as the state's tooltip.
 */
import React from 'react';

import { IRoomModel } from '../model';

export function AgentHeld(props: { model: IRoomModel }): JSX.Element | null {
  const { meta } = props.model;
  if (meta.state !== 'held' || !meta.agent_detail) {
    return null;
  }
  return (
    <p className="jp-CopilotRoom-held" role="status">
      {meta.agent_detail}
    </p>
  );
}
