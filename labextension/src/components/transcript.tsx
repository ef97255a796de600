/**
 * The live transcript. The list re-renders only when entries are added; each entry observes its
 * own source, so a streamed delta re-renders that one entry (at most once per frame), never the
 * whole list. Long transcripts render only their latest entries until the reader asks for more.
 *
 * It opens at the latest entry and follows new output while the reader is at the bottom; a
 * reader who scrolled up keeps their place and gets a "new activity" button instead. Screen
 * readers hear finished paragraphs of replies (announcer.ts), not the log's every change.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { useEffect, useLayoutEffect, useRef, useState } from 'react';

import { Announcer } from '../announcer';
import { IEntrySource, IRoomModel } from '../model';
import { Entry } from './entries';
import { useSignal } from './hooks';

const WINDOW = 200;
/** Within this many pixels of the bottom, the reader is at the bottom. */
const SLACK = 24;
/** How many announcements the live region keeps (a screen reader speaks each once). */
const SPOKEN = 3;

export function Transcript(props: {
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { model, rendermime } = props;
  useSignal(model.entriesChanged);
  const entries: readonly IEntrySource[] = model.entries;
  const [shown, setShown] = useState(WINDOW);
  const [unseen, setUnseen] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  const onScroll = () => {
    const node = scroller.current;
    // A hidden panel (closed sidebar) has no size: that is not the reader scrolling up.
    if (node && node.clientHeight > 0) {
      following.current = node.scrollHeight - node.scrollTop - node.clientHeight < SLACK;
      if (following.current) {
        setUnseen(false);
      }
    }
  };
  useLayoutEffect(() => {
    const node = scroller.current;
    if (!node) {
      return;
    }
    // Any change of the rendered entries (a new entry, a streamed delta, markdown rendering, an
    // image loading, the panel being shown again) keeps a following reader at the bottom; a
    // reader who scrolled up is told there is more below.
    const follow = () => {
      if (following.current) {
        node.scrollTop = node.scrollHeight;
      }
    };
    const changed = () => {
      if (following.current) {
        follow();
      } else {
        setUnseen(true);
      }
    };
    const mutations = new MutationObserver(changed);
    mutations.observe(node, { childList: true, subtree: true, characterData: true });
    const sizes = new ResizeObserver(follow);
    sizes.observe(node);
    if (node.firstElementChild) {
      sizes.observe(node.firstElementChild);
    }
    follow();
    return () => {
      mutations.disconnect();
      sizes.disconnect();
    };
  }, []);

  const jump = () => {
    const node = scroller.current;
    if (node) {
      following.current = true;
      setUnseen(false);
      const reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
      node.scrollTo({ top: node.scrollHeight, behavior: reduce ? 'auto' : 'smooth' });
    }
  };

  const hidden = Math.max(0, entries.length - shown);
  return (
    <div className="jp-CopilotRoom-transcriptBox">
      <div
        className="jp-CopilotRoom-transcript"
        ref={scroller}
        onScroll={onScroll}
        role="log"
        aria-live="off"
        aria-label="Room transcript"
        tabIndex={0}
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
          {entries.slice(hidden).map(source => (
            <Entry key={source.id} source={source} model={model} rendermime={rendermime} />
          ))}
        </div>
      </div>
      {unseen && (
        <button className="jp-mod-styled jp-CopilotRoom-jump" onClick={jump}>
          New activity below ↓
        </button>
      )}
      <Spoken model={model} />
    </div>
  );
}

/** The polite live region the announcer speaks through (visually hidden). */
function Spoken(props: { model: IRoomModel }): JSX.Element {
  const { model } = props;
  const [said, setSaid] = useState<{ n: number; text: string }[]>([]);
  useEffect(() => {
    let n = 0;
    const announcer = new Announcer(model, text =>
      setSaid(before => [...before, { n: n++, text }].slice(-SPOKEN))
    );
    return () => announcer.dispose();
  }, [model]);
  return (
    <div className="jp-CopilotRoom-spoken" aria-live="polite" aria-relevant="additions">
      {said.map(({ n, text }) => (
        <p key={n}>{text}</p>
      ))}
    </div>
  );
}
