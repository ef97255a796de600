/** The agent's reply, labelled as Copilot's, streamed as it comes and rendered as Markdown,
 * with copy buttons for the whole reply and for each code block; the turn's last reply also
 * says what the turn cost. */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import React, { useEffect, useRef } from 'react';

import { IAssistantEntry } from '../../entries';
import { IEntrySource, IRoomModel } from '../../model';
import { loadRemoteImage, reloadChosenImages, REMOTE_IMAGE_CLASS } from '../../sanitize';
import { useEntry } from '../hooks';
import { addCodeCopyButtons, copyCodeOnClick, CopyButton } from './copy';
import { formatTime } from './time';

export function ReplyEntry(props: {
  entry: IAssistantEntry;
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { entry, model } = props;
  const prompt = model.entries.find(source => source.id === entry.prompt_id);
  return (
    <div
      className="jp-CopilotRoom-entry jp-CopilotRoom-reply"
      data-state={entry.state}
      aria-busy={entry.state === 'streaming'}
    >
      <div className="jp-CopilotRoom-entryHeader">
        <span className="jp-CopilotRoom-agentName">Copilot</span>
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
        {entry.state !== 'streaming' && entry.body && (
          <CopyButton text={entry.body} label="Copy this reply" />
        )}
      </div>
      <Markdown text={entry.body} rendermime={props.rendermime} />
      {entry.state === 'partial' && (
        <div className="jp-CopilotRoom-note">The reply stopped here.</div>
      )}
      {prompt && <TurnCost prompt={prompt} reply={entry} model={model} />}
    </div>
  );
}

/** What the turn cost, under its last reply once the turn has ended (usage comes last). */
function TurnCost(props: {
  prompt: IEntrySource;
  reply: IAssistantEntry;
  model: IRoomModel;
}): JSX.Element | null {
  const prompt = useEntry(props.prompt);
  const usage = prompt.kind === 'prompt' ? prompt.usage : undefined;
  if (!usage || !isLastReply(props.model, props.reply)) {
    return null;
  }
  const tokens = (n: number) => n.toLocaleString('en');
  return (
    <div className="jp-CopilotRoom-usage">
      {usage.model}: {tokens(usage.input_tokens)} tokens in, {tokens(usage.output_tokens)} out
    </div>
  );
}

/** No later reply of the same turn (a turn's entries run until the next prompt). */
function isLastReply(model: IRoomModel, reply: IAssistantEntry): boolean {
  const sources = model.entries;
  for (let n = sources.findIndex(s => s.id === reply.id) + 1; n > 0 && n < sources.length; n++) {
    const later = sources[n].read();
    if (later.kind === 'prompt') {
      break;
    }
    if (later.kind === 'assistant' && later.prompt_id === reply.prompt_id) {
      return false;
    }
  }
  return true;
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
      .then(() => {
        reloadChosenImages(current.node, chosen.current);
        addCodeCopyButtons(current.node);
      });
  }, [text, rendermime]);
  const onClick = (event: React.MouseEvent<HTMLDivElement>) => {
    const target = event.target instanceof Element ? event.target : null;
    if (target && host.current && copyCodeOnClick(target, host.current)) {
      return;
    }
    const placeholder = target?.closest<HTMLElement>(`button.${REMOTE_IMAGE_CLASS}`);
    if (placeholder && host.current?.contains(placeholder)) {
      chosen.current.add(placeholder.dataset.src ?? '');
      loadRemoteImage(placeholder);
    }
  };
  return <div className="jp-CopilotRoom-markdown" ref={host} onClick={onClick} />;
}
