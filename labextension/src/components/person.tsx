/** A person's name with their colour, avatar and badges, as everywhere in the panel. */
import React from 'react';

import { IParticipant } from '../types';

export function colourOf(username: string, colour?: string | null): string {
  if (colour) {
    return colour;
  }
  // A stable colour per name, from JupyterLab's collaborator palette.
  let hash = 0;
  for (const char of username) {
    hash = (hash * 31 + char.charCodeAt(0)) | 0;
  }
  return `var(--jp-collaborator-color${(Math.abs(hash) % 7) + 1})`;
}

/** The name people know: the display name once the room has seen them. */
export function displayName(username: string, person?: IParticipant): string {
  return person?.display_name || username;
}

export function Avatar(props: { username: string; person?: IParticipant }): JSX.Element {
  const { username, person } = props;
  if (person?.avatar_url) {
    return <img className="jp-CopilotRoom-avatar" src={person.avatar_url} alt="" />;
  }
  return (
    <span
      className="jp-CopilotRoom-avatar"
      style={{ backgroundColor: colourOf(username, person?.color) }}
      aria-hidden="true"
    >
      {displayName(username, person).slice(0, 1).toUpperCase()}
    </span>
  );
}

export function PersonName(props: { username: string; person?: IParticipant }): JSX.Element {
  const { username, person } = props;
  return (
    <span className="jp-CopilotRoom-person" title={username}>
      <Avatar username={username} person={person} />
      <span className="jp-CopilotRoom-personName">{displayName(username, person)}</span>
      {person && !person.verified && (
        <span className="jp-CopilotRoom-badge jp-mod-unverified" title="Not verified by the server">
          unverified
        </span>
      )}
    </span>
  );
}
