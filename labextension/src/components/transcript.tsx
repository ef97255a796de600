/**
 * The live transcript. The list re-renders only when entries are added; each entry observes its
 * own Y.Map, so a streamed delta re-renders that one entry (at most once per frame), never the
 * whole list. Long transcripts render only their latest entries until the reader asks for more.
 */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import React, { useEffect, useLayoutEffect, useRef, useState } from 'react';
import * as Y from 'yjs';

import { RoomModel } from '../model';
import { useSignal, useYMap } from './hooks';
import { PersonName } from './person';

const WINDOW = 200;

export function Transcript(props: {
  model: RoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { model, rendermime } = props;
  useSignal(model.documentChanged);
  const entries = useEntries(model.transcript);
  const [shown, setShown] = useState(WINDOW);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  // Follow new output unless the reader scrolled up; resume when they scroll back down.
  const onScroll = () => {
    const node = scroller.current;
    if (node) {
      following.current = node.scrollHeight - node.scrollTop - node.clientHeight < 40;
    }
  };
  useLayoutEffect(() => {
    const node = scroller.current;
    if (!node) {
      return;
    }
    // Any change of the rendered entries (a new entry, a streamed delta, markdown rendering)
    // keeps a following reader at the bottom.
    const follow = () => {
      if (following.current) {
        node.scrollTop = node.scrollHeight;
      }
    };
    const observer = new MutationObserver(follow);
    observer.observe(node, { childList: true, subtree: true, characterData: true });
    follow();
    return () => observer.disconnect();
  }, []);

  const hidden = Math.max(0, entries.length - shown);
  return (
    <div
      className="jp-CopilotRoom-transcript"
      ref={scroller}
      onScroll={onScroll}
      role="log"
      aria-live="polite"
      aria-label="Room transcript"
    >
      <div className="jp-CopilotRoom-entries">
        {hidden > 0 && (
          <button
            className="jp-CopilotRoom-more jp-mod-styled"
            onClick={() => setShown(shown + WINDOW)}
          >
            Show {Math.min(hidden, WINDOW)} earlier entries
          </button>
        )}
        {entries.length === 0 && (
          <p className="jp-CopilotRoom-empty">Nothing has happened in this room yet.</p>
        )}
        {entries.slice(hidden).map(entry => (
          <Entry
            key={entry.get('id')}
            entry={entry}
            model={model}
            rendermime={rendermime}
          />
        ))}
      </div>
    </div>
  );
}

/** The entries of the transcript array, updated on insertions only. */
function useEntries(array: Y.Array<Y.Map<any>> | null): Y.Map<any>[] {
  const [entries, setEntries] = useState<Y.Map<any>[]>(() => array?.toArray() ?? []);
  useEffect(() => {
    if (!array) {
      setEntries([]);
      return;
    }
    const update = () => setEntries(array.toArray());
    update();
    array.observe(update);
    return () => array.unobserve(update);
  }, [array]);
  return entries;
}

function Entry(props: {
  entry: Y.Map<any>;
  model: RoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { model, rendermime } = props;
  const entry = useYMap(props.entry);
  switch (entry.kind) {
    case 'prompt':
      return <PromptEntry entry={entry} model={model} />;
    case 'assistant':
      return <ReplyEntry entry={entry} rendermime={rendermime} />;
    case 'reasoning':
      return <ReasoningEntry entry={entry} />;
    case 'tool':
      return <ToolEntry entry={entry} />;
    case 'subagent':
      return <SubagentEntry entry={entry} />;
    case 'permission':
    case 'question':
      return <RequestEntry entry={entry} />;
    default:
      return <SystemEntry entry={entry} />;
  }
}

function PromptEntry(props: { entry: any; model: RoomModel }): JSX.Element {
  const { entry, model } = props;
  const target = entry.target;
  return (
    <div
      className="jp-CopilotRoom-entry jp-CopilotRoom-prompt"
      data-state={entry.state}
      data-entry-id={entry.id}
    >
      <div className="jp-CopilotRoom-entryHeader">
        <PersonName username={entry.author} person={model.person(entry.author)} />
        {target && (
          <span className="jp-CopilotRoom-badge">
            {target.kind === 'skill' ? '/' : '@'}
            {target.name}
          </span>
        )}
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
      </div>
      <div className="jp-CopilotRoom-promptText">{entry.body}</div>
      {entry.usage && (
        <div className="jp-CopilotRoom-usage">
          {entry.usage.model}: {entry.usage.input_tokens} in, {entry.usage.output_tokens} out
        </div>
      )}
    </div>
  );
}

function ReplyEntry(props: { entry: any; rendermime: IRenderMimeRegistry }): JSX.Element {
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
  const host = useRef<HTMLDivElement>(null);
  const renderer = useRef<ReturnType<IRenderMimeRegistry['createRenderer']> | null>(null);
  useEffect(() => {
    renderer.current = props.rendermime.createRenderer('text/markdown');
    host.current?.appendChild(renderer.current.node);
    return () => renderer.current?.dispose();
  }, [props.rendermime]);
  useEffect(() => {
    void renderer.current?.renderModel(
      new MimeModel({ data: { 'text/markdown': props.text }, trusted: false })
    );
  }, [props.text]);
  return <div className="jp-CopilotRoom-markdown" ref={host} />;
}

function ReasoningEntry(props: { entry: any }): JSX.Element {
  return (
    <details className="jp-CopilotRoom-entry jp-CopilotRoom-reasoning">
      <summary>Reasoning</summary>
      <div className="jp-CopilotRoom-preformatted">{props.entry.body}</div>
    </details>
  );
}

function ToolEntry(props: { entry: any }): JSX.Element {
  const { entry } = props;
  const status = { running: 'running…', success: 'done', error: 'failed' }[
    entry.state as string
  ];
  return (
    <details className="jp-CopilotRoom-entry jp-CopilotRoom-tool" data-state={entry.state}>
      <summary>
        <span className="jp-CopilotRoom-toolName">{entry.tool}</span>
        <code className="jp-CopilotRoom-toolSummary">{entry.summary}</code>
        <span className="jp-CopilotRoom-status">
          {status ?? entry.state}
          {typeof entry.duration === 'number' && ` · ${entry.duration.toFixed(1)} s`}
        </span>
      </summary>
      {entry.result && <pre className="jp-CopilotRoom-result">{entry.result}</pre>}
    </details>
  );
}

function SubagentEntry(props: { entry: any }): JSX.Element {
  const { entry } = props;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-subagent" data-state={entry.state}>
      Sub-agent <strong>@{entry.name}</strong>: {entry.body}{' '}
      <span className="jp-CopilotRoom-status">{entry.state}</span>
      {entry.error && <div className="jp-CopilotRoom-note">{entry.error}</div>}
    </div>
  );
}

const OUTCOMES: Record<string, string> = {
  pending: 'waiting for an answer',
  approved: 'approved',
  rejected: 'rejected',
  answered: 'answered',
  timed_out: 'nobody answered in time: rejected',
  aborted: 'cancelled'
};

function RequestEntry(props: { entry: any }): JSX.Element {
  const { entry } = props;
  const who = entry.answered_by ? ` by ${entry.answered_by}` : '';
  const what =
    entry.kind === 'question'
      ? 'asked'
      : entry.request_kind === 'notebook'
        ? 'asked to edit a notebook'
        : `asked to run ${entry.request_kind ?? ''}`;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-request" data-state={entry.state}>
      Copilot {what}: <code>{entry.body}</code>{' '}
      <span className="jp-CopilotRoom-status">
        {OUTCOMES[entry.state] ?? entry.state}
        {entry.state !== 'pending' && entry.state !== 'timed_out' && who}
      </span>
      {entry.answer && <div className="jp-CopilotRoom-note">Answer: {entry.answer}</div>}
      {entry.feedback && <div className="jp-CopilotRoom-note">Feedback: {entry.feedback}</div>}
    </div>
  );
}

function SystemEntry(props: { entry: any }): JSX.Element {
  const { entry } = props;
  return (
    <div className={`jp-CopilotRoom-entry jp-CopilotRoom-system jp-mod-${entry.kind}`}>
      {entry.body} <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
    </div>
  );
}

function formatTime(ts?: number): string {
  return ts ? new Date(ts * 1000).toLocaleTimeString() : '';
}
