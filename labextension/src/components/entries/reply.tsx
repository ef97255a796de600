/** The agent's reply, streamed as it comes and rendered as Markdown. */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import React, { useEffect, useRef } from 'react';

import { IAssistantEntry } from '../../entries';

export function ReplyEntry(props: {
  entry: IAssistantEntry;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { entry } = props;
  return (
    <div
      className="jp-CopilotRoom-entry jp-CopilotRoom-reply"
      data-state={entry.state}
      aria-busy={entry.state === 'streaming'}
    >
      <Markdown text={entry.body} rendermime={props.rendermime} />
      {entry.state === 'partial' && (
        <div className="jp-CopilotRoom-note">The reply stopped here.</div>
      )}
    </div>
  );
}

/** Markdown through JupyterLab's rendermime: sanitized (untrusted), highlighted code. */
function Markdown(props: { text: string; rendermime: IRenderMimeRegistry }): JSX.Element {
  const { text, rendermime } = props;
  const host = useRef<HTMLDivElement>(null);
  const renderer = useRef<ReturnType<IRenderMimeRegistry['createRenderer']> | null>(null);
  useEffect(() => {
    const created = rendermime.createRenderer('text/markdown');
    renderer.current = created;
    host.current?.appendChild(created.node);
    return () => {
      renderer.current = null;
      created.dispose();
    };
  }, [rendermime]);
  useEffect(() => {
    void renderer.current?.renderModel(
      new MimeModel({ data: { 'text/markdown': text }, trusted: false })
    );
  }, [text, rendermime]);
  return <div className="jp-CopilotRoom-markdown" ref={host} />;
}
