/** The room's settings a host changes while it runs (`PATCH settings`). */
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import { AdmissionPolicy, ISettings } from '../types';
import { Refusal, useAction } from './action';

const POLICIES: AdmissionPolicy[] = ['ask-host', 'viewer', 'member', 'refuse'];

export function RoomSettings(props: { client: IRoomClient }): JSX.Element {
  const { client } = props;
  const action = useAction();
  const { run } = action;
  const [settings, setSettings] = useState<ISettings | null>(null);
  useEffect(() => {
    void run(() => client.settings()).then(loaded => loaded && setSettings(loaded));
  }, [client, run]);
  const change = (changes: Partial<ISettings>) =>
    void run(() => client.patchSettings(changes)).then(saved => saved && setSettings(saved));
  return (
    <details className="jp-CopilotRoom-settings">
      <summary>Room settings</summary>
      {settings && (
        <>
          <PolicySelect
            label="Signed-in people nobody decided on"
            value={settings.admission}
            disabled={action.busy}
            onChange={admission => change({ admission })}
          />
          <PolicySelect
            label="Unverified guests"
            value={settings.guest_admission}
            disabled={action.busy}
            onChange={guest_admission => change({ guest_admission })}
          />
          <label className="jp-CopilotRoom-checkbox">
            <input
              type="checkbox"
              checked={settings.auto_approve_notebook_edits}
              disabled={action.busy}
              onChange={event => change({ auto_approve_notebook_edits: event.target.checked })}
            />
            The agent&apos;s notebook edits approve themselves (commands always ask)
          </label>
        </>
      )}
      <Refusal action={action} />
    </details>
  );
}

function PolicySelect(props: {
  label: string;
  value: AdmissionPolicy;
  disabled: boolean;
  onChange: (value: AdmissionPolicy) => void;
}): JSX.Element {
  return (
    <label>
      {props.label}
      <select
        className="jp-mod-styled"
        value={props.value}
        disabled={props.disabled}
        onChange={event => props.onChange(event.target.value as AdmissionPolicy)}
      >
        {POLICIES.map(policy => (
          <option key={policy}>{policy}</option>
        ))}
      </select>
    </label>
  );
}
