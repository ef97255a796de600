/**
 * A person as the panel shows them: `PersonName` (avatar, display name, badges) where a row is
 * about someone, `Name` (their colour and display name) inside a sentence. The username is
 * only in the tooltip, beside the whole name (a name the sidebar's width cuts short); the words
 * come from `names.ts`.
 */
import React from 'react';

import { IRoomModel } from '../model';
import { displayName, vouchedForByNobody } from '../names';
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

/** The tooltip of a name: the whole display name and the username the audit trail uses. */
export function nameTooltip(username: string, person?: IParticipant | null): string | undefined {
  const name = displayName(username, person);
  return !username ? undefined : name === username ? username : `${name} (${username})`;
}

export function PersonName(props: { username: string; person?: IParticipant }): JSX.Element {
  const { username, person } = props;
  return (
    <span className="jp-CopilotRoom-person" title={nameTooltip(username, person)}>
      <Avatar username={username} person={person} />
      <span className="jp-CopilotRoom-personName">{displayName(username, person)}</span>
      {person && vouchedForByNobody(username, person) && (
        <span className="jp-CopilotRoom-badge jp-mod-unverified" title="Not verified by the server">
          unverified
        </span>
      )}
    </span>
  );
}

/** Someone named inside a sentence: "<Name> admitted <Name> as a member." */
export function Name(props: { username: string; model: Pick<IRoomModel, 'person'> }): JSX.Element {
  const { username, model } = props;
  const person = model.person(username);
  return (
    <span className="jp-CopilotRoom-name" title={nameTooltip(username, person)}>
      <span
        className="jp-CopilotRoom-nameDot"
        style={{ backgroundColor: colourOf(username, person?.color) }}
        aria-hidden="true"
      />
      {displayName(username, person)}
    </span>
  );
}
