/** The agent's reply, streamed as it comes and rendered as Markdown. */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import React, { useEffect, useRef } from 'react';

import { IAssistantEntry } from '../../entries';
import { loadRemoteImage, reloadChosenImages, REMOTE_IMAGE_CLASS } from '../../sanitize';

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

/** Markdown through JupyterLab's rendermime, untrusted: the panel's rendermime sanitizes it
 * (../../sanitize.ts), so a remote image shows as a placeholder; clicking one loads it here. */
function Markdown(props: { text: string; rendermime: IRenderMimeRegistry }): JSX.Element {
  const { text, rendermime } = props;
  const host = useRef<HTMLDivElement>(null);
  const renderer = useRef<ReturnType<IRenderMimeRegistry['createRenderer']> | null>(null);
  // The remote images this person chose to load: loaded again when the reply re-renders.
  const chosen = useRef(new Set<string>());
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
    const current = renderer.current;
    void current
      ?.renderModel(new MimeModel({ data: { 'text/markdown': text }, trusted: false }))
      .then(() => reloadChosenImages(current.node, chosen.current));
  }, [text, rendermime]);
  const onClick = (event: React.MouseEvent<HTMLDivElement>) => {
    const target = event.target instanceof Element ? event.target : null;
    const placeholder = target?.closest<HTMLElement>(`button.${REMOTE_IMAGE_CLASS}`);
    if (placeholder && host.current?.contains(placeholder)) {
      chosen.current.add(placeholder.dataset.src ?? '');
      loadRemoteImage(placeholder);
    }
  };
  return <div className="jp-CopilotRoom-markdown" ref={host} onClick={onClick} />;
}
