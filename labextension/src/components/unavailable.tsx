/**
 * When the agent cannot run: what to do first (the server's short paragraph), that prompts wait
 * until the agent is back, a host's "Try again" (the server looks for the runtime again, no
 * restart), and the exact error collapsed below for whoever wants it.
 */
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { mayStartAgent } from '../policy';
import { Refusal, useAction } from './action';

/** `text` with its `code spans` as <code>, so a command reads as one. */
function withCode(text: string): React.ReactNode[] {
  return text
    .split('`')
    .map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part));
}

export function AgentUnavailable(props: {
  model: IRoomModel;
  client: IRoomClient;
}): JSX.Element | null {
  const { model, client } = props;
  const action = useAction();
  const { meta, me } = model;
  if (meta.state !== 'unavailable') {
    return null;
  }
  const host = mayStartAgent(me);
  return (
    <section className="jp-CopilotRoom-unavailable" role="alert" aria-label="The agent cannot run">
      <p className="jp-CopilotRoom-unavailableAdvice">
        {withCode(meta.agent_detail || 'The agent cannot run on this server.')}
      </p>
      <p className="jp-CopilotRoom-unavailableWait">
        Prompts sent now wait in the queue until the agent is back
        {host ? '.' : '; a host can try again.'}
      </p>
      {host && (
        <button
          className="jp-mod-styled jp-mod-accept jp-CopilotRoom-small"
          disabled={action.busy}
          onClick={() => void action.run(() => client.startAgent())}
        >
          Try again
        </button>
      )}
      <Refusal action={action} />
      {meta.agent_error && (
        <details className="jp-CopilotRoom-unavailableDetails">
          <summary>Details</summary>
          <pre>{meta.agent_error}</pre>
        </details>
      )}
    </section>
  );
}
