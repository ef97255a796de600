/**
 * The live transcript. The list re-renders only when entries are added; each entry observes its
 * own source, so a streamed delta re-renders that one entry (at most once per frame), never the
 * whole list. Long transcripts render only their latest entries until the reader asks for more.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { useLayoutEffect, useRef, useState } from 'react';

import { IEntrySource, IRoomModel } from '../model';
import { Entry } from './entries';
import { useSignal } from './hooks';

const WINDOW = 200;

export function Transcript(props: {
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { model, rendermime } = props;
  useSignal(model.entriesChanged);
  const entries: readonly IEntrySource[] = model.entries;
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
        {entries.slice(hidden).map(source => (
          <Entry key={source.id} source={source} model={model} rendermime={rendermime} />
        ))}
      </div>
    </div>
  );
}
