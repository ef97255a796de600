/** Who is in the room, with their roles; hosts admit, re-role and remove people here. */
import React, { useEffect, useState } from 'react';

import { RoomModel } from '../model';
import { IParticipant, ISettings } from '../types';
import { AdmissionCard } from './cards';
import { PersonName } from './person';

const POLICIES = ['ask-host', 'viewer', 'member', 'refuse'];

export function People(props: { model: RoomModel }): JSX.Element {
  const { model } = props;
  const host = model.can('manage_people');
  const people = model.participants;
  const waiting = people.filter(p => p.role === 'pending');
  const inside = people.filter(p => p.role !== 'pending' && p.role !== 'refused');
  return (
    <section className="jp-CopilotRoom-people" aria-label="People in the room">
      {host && waiting.map(p => <AdmissionCard key={p.username} person={p} model={model} />)}
      <h3 className="jp-CopilotRoom-heading">People</h3>
      <ul>
        {inside.map(person => (
          <Person key={person.username} person={person} model={model} host={host} />
        ))}
      </ul>
      {host && <AdmissionSettings model={model} />}
    </section>
  );
}

function Person(props: {
  person: IParticipant;
  model: RoomModel;
  host: boolean;
}): JSX.Element {
  const { person, model, host } = props;
  const editable = host && person.role !== 'host';
  return (
    <li className="jp-CopilotRoom-personRow" data-online={person.online}>
      <span
        className="jp-CopilotRoom-presence"
        title={person.online ? 'online' : 'offline'}
        aria-label={person.online ? 'online' : 'offline'}
      />
      <PersonName username={person.username} person={person} />
      {editable ? (
        <>
          <select
            className="jp-mod-styled"
            aria-label={`Role of ${person.username}`}
            value={person.role}
            onChange={event =>
              void model.setRole(person.username, event.target.value as 'viewer' | 'member')
            }
          >
            <option value="member">member</option>
            <option value="viewer">viewer</option>
          </select>
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label={`Remove ${person.username} from the room`}
            onClick={() => void model.remove(person.username)}
          >
            Remove
          </button>
        </>
      ) : (
        <span className={`jp-CopilotRoom-badge jp-mod-${person.role}`}>{person.role}</span>
      )}
    </li>
  );
}

function AdmissionSettings(props: { model: RoomModel }): JSX.Element {
  const { model } = props;
  const [settings, setSettings] = useState<ISettings | null>(null);
  useEffect(() => {
    void model.settings().then(setSettings);
  }, [model]);
  if (!settings) {
    return <></>;
  }
  const change = (key: 'admission' | 'guest_admission', value: string) =>
    void model.patchSettings({ [key]: value }).then(setSettings);
  return (
    <details className="jp-CopilotRoom-settings">
      <summary>Room settings</summary>
      <PolicySelect
        label="Signed-in people nobody decided on"
        value={settings.admission}
        onChange={value => change('admission', value)}
      />
      <PolicySelect
        label="Unverified guests"
        value={settings.guest_admission}
        onChange={value => change('guest_admission', value)}
      />
      <label className="jp-CopilotRoom-checkbox">
        <input
          type="checkbox"
          checked={settings.auto_approve_notebook_edits}
          onChange={event =>
            void model
              .patchSettings({ auto_approve_notebook_edits: event.target.checked })
              .then(setSettings)
          }
        />
        The agent's notebook edits approve themselves (commands always ask)
      </label>
    </details>
  );
}

function PolicySelect(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}): JSX.Element {
  return (
    <label>
      {props.label}
      <select
        className="jp-mod-styled"
        value={props.value}
        onChange={event => props.onChange(event.target.value)}
      >
        {POLICIES.map(policy => (
          <option key={policy}>{policy}</option>
        ))}
      </select>
    </label>
  );
}
