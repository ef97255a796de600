/** Who is in the room, with their roles; hosts re-role and remove people here (people at the
 * door wait with the cards, cards.tsx, where hosts see them without opening this section). */
import { Dialog, InputDialog, showDialog } from '@jupyterlab/apputils';
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { cleanName, mayRename, rename } from '../myname';
import { displayName } from '../names';
import { ASSIGNABLE_ROLES, isAdmitted, mayChangeRole } from '../policy';
import { IParticipant } from '../types';
import { IAction, Refusal, useAction } from './action';
import { PersonName } from './person';
import { PersonUsage, RoomUsage } from './usage';

export function People(props: { model: IRoomModel; client: IRoomClient }): JSX.Element {
  const { model, client } = props;
  const action = useAction();
  const people = model.participants;
  return (
    <section className="jp-CopilotRoom-people" aria-label="People in the room">
      <h3 className="jp-CopilotRoom-heading">People</h3>
      <MyName model={model} client={client} action={action} />
      <RoomUsage model={model} />
      <ul>
        {people
          .filter(p => isAdmitted(p.role))
          .map(person => (
            <Person
              key={person.username}
              person={person}
              model={model}
              client={client}
              action={action}
            />
          ))}
      </ul>
      <Refusal action={action} />
    </section>
  );
}

function Person(props: {
  person: IParticipant;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { person, model, client, action } = props;
  const { username } = person;
  const name = displayName(username, person);
  return (
    <li className="jp-CopilotRoom-personRow" data-online={person.online}>
      <span
        className="jp-CopilotRoom-presence"
        role="img"
        title={person.online ? 'online' : 'offline'}
        aria-label={person.online ? 'online' : 'offline'}
      />
      <PersonName username={username} person={person} />
      {mayChangeRole(model.me, person) ? (
        <span className="jp-CopilotRoom-personActions">
          <select
            className="jp-mod-styled"
            aria-label={`Role of ${name}`}
            value={person.role}
            disabled={action.busy}
            onChange={event => {
              const role = event.target.value as (typeof ASSIGNABLE_ROLES)[number];
              void action.run(() => client.setRole(username, role));
            }}
          >
            {ASSIGNABLE_ROLES.map(role => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label={`Remove ${name} from the room`}
            disabled={action.busy}
            onClick={async () => {
              if (await confirmRemove(person)) {
                await action.run(() => client.remove(username));
              }
            }}
          >
            Remove
          </button>
        </span>
      ) : (
        <span className={`jp-CopilotRoom-badge jp-mod-${person.role}`}>{person.role}</span>
      )}
      <PersonUsage model={model} client={client} username={username} action={action} />
    </li>
  );
}

/** "Change my name…" where the server lets people choose theirs (a plain `jupyter lab`'s
 * anonymous users, ../myname.ts); everyone in the room sees the new name. */
function MyName(props: {
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element | null {
  const { model, client, action } = props;
  const [allowed, setAllowed] = useState(false);
  useEffect(() => {
    let live = true;
    void mayRename().then(may => live && setAllowed(may));
    return () => {
      live = false;
    };
  }, []);
  const me = model.me;
  if (!allowed || !me) {
    return null;
  }
  const change = async () => {
    const asked = await InputDialog.getText({
      title: 'Your name in the room',
      label: 'Everyone in the room sees you by this name.',
      text: displayName(me.username, model.person(me.username)),
      placeholder: 'Your name'
    });
    const name = asked.button.accept && asked.value ? cleanName(asked.value) : '';
    if (name) {
      await action.run(async () => {
        await rename(name);
        return client.room(); // the room checks the caller in: it hears the new name
      });
    }
  };
  return (
    <button
      type="button"
      className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-myName"
      disabled={action.busy}
      onClick={() => void change()}
    >
      Change my name…
    </button>
  );
}

/** Removing someone cannot be undone from the panel: ask first. */
async function confirmRemove(person: IParticipant): Promise<boolean> {
  const result = await showDialog({
    title: `Remove ${displayName(person.username, person)}?`,
    body: 'They leave the room now, and the room turns them away if they come back.',
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Remove' })]
  });
  return result.button.accept;
}
