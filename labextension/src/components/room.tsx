/** The whole panel: status, waiting screen, transcript, cards, queue, people, prompt box. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React from 'react';

import { RoomModel } from '../model';
import { ApprovalCards } from './cards';
import { useSignal } from './hooks';
import { People } from './people';
import { PromptBox } from './promptbox';
import { Queue } from './queue';
import { Transcript } from './transcript';

export const STATE_LABELS: Record<string, string> = {
  'no-agent': 'no agent',
  starting: 'starting',
  unavailable: 'unavailable',
  idle: 'idle',
  running: 'running',
  waiting: 'waiting for approval',
  aborting: 'stopping',
  degraded: 'degraded'
};

export function Room(props: {
  model: RoomModel;
  rendermime: IRenderMimeRegistry;
  inputRef: React.RefObject<HTMLTextAreaElement>;
}): JSX.Element {
  const { model, rendermime, inputRef } = props;
  useSignal(model.changed);
  const me = model.me;
  if (me && (me.role === 'pending' || me.role === 'refused')) {
    return <Door role={me.role} guest={!me.verified} />;
  }
  const meta = model.meta;
  return (
    <div className="jp-CopilotRoom-room">
      <header className="jp-CopilotRoom-header">
        <span className="jp-CopilotRoom-title">Copilot room</span>
        <span
          className="jp-CopilotRoom-state"
          data-state={meta.state}
          title={meta.agent_detail || undefined}
        >
          {meta.agent ? `${meta.agent} · ` : ''}
          {STATE_LABELS[meta.state ?? ''] ?? meta.state ?? '…'}
        </span>
        {meta.turn_owner && (
          <span className="jp-CopilotRoom-turn">{meta.turn_owner}'s turn</span>
        )}
      </header>
      {model.connection !== 'online' && (
        <div className="jp-CopilotRoom-offline" role="alert">
          {model.connection === 'connecting'
            ? 'Connecting to the room…'
            : 'Offline: reconnecting to the room. What you see may be out of date.'}
        </div>
      )}
      {meta.state === 'unavailable' && meta.agent_detail && (
        <div className="jp-CopilotRoom-error" role="alert">
          {meta.agent_detail}
        </div>
      )}
      <Transcript model={model} rendermime={rendermime} />
      <ApprovalCards model={model} />
      <Queue model={model} />
      <details className="jp-CopilotRoom-peopleBox">
        <summary>
          People ({model.participants.filter(p => p.online).length} online
          {model.participants.some(p => p.role === 'pending') ? ', someone is waiting' : ''})
        </summary>
        <People model={model} />
      </details>
      <PromptBox model={model} inputRef={inputRef} />
    </div>
  );
}

function Door(props: { role: string; guest: boolean }): JSX.Element {
  return (
    <div className="jp-CopilotRoom-door" role="status">
      {props.role === 'pending' ? (
        <>
          <h2>Waiting to join the room</h2>
          <p>A host has been asked to let you in. This page updates by itself.</p>
          {props.guest && (
            <p className="jp-CopilotRoom-note">
              Did you start this Jupyter server? Then open the one-time host link it printed
              in its log (<code>…/copilot-room/claim?secret=…</code>) to become the room's
              host.
            </p>
          )}
        </>
      ) : (
        <>
          <h2>You are not in this room</h2>
          <p>A host turned you away or removed you. Ask a host if that was a mistake.</p>
        </>
      )}
    </div>
  );
}
