/** A diff coloured line by line (see ../diff.ts): files and cells as headings, added and
 * removed lines marked by colour and by their sign, so it reads without colour too. In a short
 * box (a card's, whose top may be all of it in sight above the card's buttons at 250 px) it
 * opens with its first change at the top, so the change is what shows rather than the lines
 * above it (a change near the end gets the room below it to scroll that far). */
import React, { useLayoutEffect, useRef } from 'react';

import { diffLines, IDiffLine } from '../diff';

const SIGN: Partial<Record<IDiffLine['kind'], string>> = {
  added: '+',
  removed: '-',
  context: ' '
};

/** The room a short box leaves below its end, so its first change can scroll to its top
 * (style/base.css). */
const BELOW = '--jp-copilot-room-diff-below';

/** What a reader does to scroll a box themselves. */
const READER_SCROLLS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export function DiffView(props: {
  diff: string;
  className?: string;
  fromFirstChange?: boolean;
}): JSX.Element {
  const lines = diffLines(props.diff);
  const box = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const pre = box.current;
    if (!props.fromFirstChange || !pre) {
      return;
    }
    // Placed again when the box's width rewraps its lines, until the reader scrolls it.
    const sizes = new ResizeObserver(() => showFirstChange(pre));
    const hold = () => sizes.disconnect();
    showFirstChange(pre);
    sizes.observe(pre);
    for (const kind of READER_SCROLLS) {
      pre.addEventListener(kind, hold, { passive: true });
    }
    return () => {
      sizes.disconnect();
      for (const kind of READER_SCROLLS) {
        pre.removeEventListener(kind, hold);
      }
    };
  }, [props.diff, props.fromFirstChange]);
  return (
    <pre ref={box} className={`jp-CopilotRoom-diffView ${props.className ?? ''}`} data-field="diff">
      {lines.map((line, k) => (
        <span key={k} className="jp-CopilotRoom-diffLine" data-kind={line.kind}>
          {SIGN[line.kind] !== undefined && (
            <span className="jp-CopilotRoom-diffSign">{SIGN[line.kind]}</span>
          )}
          {line.text || '\u200b'}
        </span>
      ))}
    </pre>
  );
}

/** Scroll `pre` so its first change is at its top (nothing to do if all of it shows). */
function showFirstChange(pre: HTMLElement): void {
  const first = pre.querySelector('[data-kind="added"], [data-kind="removed"]');
  pre.style.removeProperty(BELOW);
  if (!first || pre.scrollHeight <= pre.clientHeight) {
    return;
  }
  const at = first.getBoundingClientRect().top - pre.getBoundingClientRect().top + pre.scrollTop;
  const short = at - (pre.scrollHeight - pre.clientHeight); // a change near the end
  if (short > 0) {
    pre.style.setProperty(BELOW, `${short}px`);
  }
  pre.scrollTop = at;
}
