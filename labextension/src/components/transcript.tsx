/**
 * The live transcript. The list re-renders only when entries are added; each entry observes its
 * own source, so a streamed delta re-renders that one entry (at most once per frame), never the
 * whole list. Long transcripts render only their latest entries until the reader asks for more;
 * beyond the live document's window, "Show earlier entries" loads pages of earlier history
 * (../history.ts). Either keeps the entries the reader sees where they were.
 *
 * It opens at the latest entry and follows new output while the reader is at the bottom; a
 * reader who scrolled up keeps their place and gets a "new activity" button instead. Screen
 * readers hear finished paragraphs of replies (announcer.ts), not the log's every change.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISignal, Signal } from '@lumino/signaling';
import React, { useEffect, useLayoutEffect, useRef, useState } from 'react';

import { Announcer } from '../announcer';
import { IEarlierHistory } from '../history';
import { IEntrySource, IRoomModel } from '../model';
import { Refusal, useAction } from './action';
import { Entry } from './entries';
import { useSignal } from './hooks';

const WINDOW = 200;
/** Within this many pixels of the bottom, the reader is at the bottom. */
const SLACK = 24;
/** A scroll this soon after the reader wheeled, touched or pressed a key is theirs. */
const READER_MS = 1000;
/** How many paragraphs the live region keeps beyond its latest batch (a screen reader speaks
 * each added one once). */
const SPOKEN = 3;

export function Transcript(props: {
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
  history?: IEarlierHistory | null;
}): JSX.Element {
  const { model, rendermime, history } = props;
  useSignal(model.entriesChanged);
  useSignal(history?.changed ?? NEVER);
  const entries: readonly IEntrySource[] = model.entries;
  // The first entry shown, once the reader asked for earlier ones; else the latest WINDOW.
  const [firstId, setFirstId] = useState<string | null>(null);
  const [unseen, setUnseen] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const told = useRef(false); // `unseen` was set and not yet cleared
  // Where the reader was (from the bottom) when they asked for earlier entries.
  const anchor = useRef<{ fromBottom: number; first: string | undefined } | null>(null);
  const loading = useAction();

  const latest = Math.max(0, entries.length - WINDOW);
  const asked = firstId === null ? -1 : entries.findIndex(source => source.id === firstId);
  const hidden = asked < 0 ? latest : Math.min(asked, latest);
  useLayoutEffect(() => {
    const node = scroller.current;
    if (node && anchor.current && entries[hidden]?.id !== anchor.current.first) {
      node.scrollTop = node.scrollHeight - anchor.current.fromBottom;
      anchor.current = null;
    }
  });
  /** Keep what the reader sees where it is once the entries from `first` on are shown. */
  const holdPlace = () => {
    const node = scroller.current;
    if (node) {
      anchor.current = {
        fromBottom: node.scrollHeight - node.scrollTop,
        first: entries[hidden]?.id
      };
    }
  };
  const showEarlier = async () => {
    holdPlace();
    if (hidden > 0) {
      setFirstId(entries[Math.max(0, hidden - WINDOW)].id);
    } else if (history) {
      const added = await loading.run(() => history.loadPage());
      if (added) {
        setFirstId(model.entries[0]?.id ?? null);
      } else {
        anchor.current = null;
      }
    }
  };

  // Where the last scroll left the view, to tell which way the next one went.
  const last = useRef({ top: 0, height: 0 });
  // When the reader last wheeled, touched or pressed a key in the transcript; whether they hold
  // the pointer down in it (dragging its scrollbar).
  const touched = useRef(-Infinity);
  const held = useRef(false);
  const touch = () => {
    touched.current = performance.now();
  };
  const hold = () => {
    held.current = true;
    const release = () => {
      held.current = false;
      touch();
    };
    window.addEventListener('pointerup', release, { once: true });
    window.addEventListener('pointercancel', release, { once: true });
  };
  const onScroll = () => {
    const node = scroller.current;
    // A hidden panel (closed sidebar) has no size: that is not the reader scrolling up.
    if (!node || node.clientHeight === 0) {
      return;
    }
    const { top, height } = last.current;
    last.current = { top: node.scrollTop, height: node.clientHeight };
    const fromBottom = node.scrollHeight - node.scrollTop - node.clientHeight;
    if (fromBottom < SLACK) {
      setFollowing(true);
    } else if (
      node.scrollTop < top &&
      ((node.clientHeight === height &&
        (held.current || performance.now() - touched.current < READER_MS)) ||
        fromBottom > node.clientHeight)
    ) {
      // Up, by the reader's hand or more than a screen away: the reader's scroll. The view
      // also moves up by itself (the open block of a streaming reply re-rendered shorter, the
      // browser's scroll anchoring); following's own scrolls arrive a frame later, after more
      // output came in: neither is the reader's.
      setFollowing(false);
    }
  };
  /** Whether new output scrolls the view; a reader who scrolled up keeps their place. */
  const setFollowing = (yes: boolean) => {
    following.current = yes;
    if (yes) {
      told.current = false;
      setUnseen(false);
    }
  };
  useLayoutEffect(() => {
    const node = scroller.current;
    if (!node) {
      return;
    }
    // Any change of the rendered entries (a new entry, a streamed delta, markdown rendering, an
    // image loading, the panel being shown again) keeps a following reader at the bottom; a
    // reader who scrolled up is told there is more below. Following scrolls once per frame, for
    // all the changes of that frame: reading scrollHeight lays the whole transcript out.
    let frame = 0;
    const follow = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        if (following.current) {
          node.scrollTop = node.scrollHeight;
          last.current = { top: node.scrollTop, height: node.clientHeight };
        }
      });
    };
    const changed = (records: MutationRecord[]) => {
      if (following.current) {
        follow();
      } else if (!told.current && records.some(record => below(record, node))) {
        told.current = true;
        setUnseen(true); // not for earlier entries coming in above
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
      cancelAnimationFrame(frame);
    };
  }, []);

  const jump = () => {
    const node = scroller.current;
    if (node) {
      setFollowing(true);
      const reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
      node.scrollTo({ top: node.scrollHeight, behavior: reduce ? 'auto' : 'smooth' });
    }
  };
  // Whoever sends is taken to the newest entry, at once: what they sent lands there (a smooth
  // scroll still under way when the reply grows would move up, and read as the reader's).
  useEffect(() => {
    const toNewest = () => {
      const node = scroller.current;
      if (node) {
        following.current = true;
        told.current = false;
        setUnseen(false);
        node.scrollTop = node.scrollHeight;
        last.current = { top: node.scrollTop, height: node.clientHeight };
      }
    };
    model.sent.connect(toNewest);
    return () => {
      model.sent.disconnect(toNewest);
    };
  }, [model]);

  return (
    <div className="jp-CopilotRoom-transcriptBox">
      <div
        className="jp-CopilotRoom-transcript"
        ref={scroller}
        onScroll={onScroll}
        onWheel={touch}
        onTouchMove={touch}
        onKeyDown={touch}
        onPointerDown={hold}
        role="log"
        aria-live="off"
        aria-label="Room transcript"
        tabIndex={0}
      >
        <div className="jp-CopilotRoom-entries">
          {(hidden > 0 || history?.available) && (
            <button
              className="jp-CopilotRoom-more jp-mod-styled"
              onClick={() => void showEarlier()}
              disabled={loading.busy}
            >
              {hidden > 0
                ? `Show ${Math.min(hidden, WINDOW)} earlier entries`
                : 'Show earlier entries'}
            </button>
          )}
          <Refusal action={loading} />
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

/** For a transcript without earlier history. */
const NEVER: ISignal<IEarlierHistory, void> = new Signal({} as IEarlierHistory);

/** Whether `record` changed something below what the reader of `scroller` sees. */
function below(record: MutationRecord, scroller: HTMLElement): boolean {
  const bottom = scroller.getBoundingClientRect().bottom;
  const nodes = record.type === 'childList' ? [...record.addedNodes] : [record.target];
  return nodes.some(node => {
    const element = node instanceof Element ? node : node.parentElement;
    return !!element && element.getBoundingClientRect().bottom > bottom;
  });
}

/** The polite live region the announcer speaks through (visually hidden): a paragraph each,
 * added a batch at a time at the reply's pace (../pace.ts). Added by hand, not by a React
 * render of its own later, so the region changes in the pace's tick beside the reply's text. */
function Spoken(props: { model: IRoomModel }): JSX.Element {
  const { model } = props;
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const announcer = new Announcer(model, paragraphs => {
      const node = region.current;
      if (!node) {
        return;
      }
      node.append(
        ...paragraphs.map(text => {
          const said = document.createElement('p');
          said.textContent = text;
          return said;
        })
      );
      // Removals are not spoken: keep the latest batch and a few paragraphs before it.
      while (node.childElementCount > SPOKEN + paragraphs.length) {
        node.firstElementChild?.remove();
      }
    });
    return () => announcer.dispose();
  }, [model]);
  return (
    <div
      className="jp-CopilotRoom-spoken"
      ref={region}
      aria-live="polite"
      aria-relevant="additions"
    />
  );
}
