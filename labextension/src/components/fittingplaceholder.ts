/**
 * The prompt box's placeholder: the longest of its texts that the text area shows whole, so a
 * narrow panel drops the keys it has no lines for instead of cutting a sentence off (the send
 * buttons' tooltips keep them).
 */
import React, { useLayoutEffect, useRef, useState } from 'react';

/** What the box may say before anything is typed, longest first: where Enter sends it. */
export function placeholders(
  asks: boolean,
  chats: boolean,
  where: string,
  agent: string
): string[] {
  if (!asks) {
    return [
      `Say something to ${where}… (Enter says it; the agent does not read it)`,
      `Say something to ${where}…`
    ];
  }
  const chat = chats ? `, Alt+Enter says it to ${where}` : '';
  return [
    `Ask ${agent}… (Enter asks${chat}, Shift+Enter for a new line, / skills, @ agents)`,
    `Ask ${agent}… (Enter asks, / skills, @ agents)`,
    `Ask ${agent}…`
  ];
}

/** The first of `texts` the text area shows whole as its placeholder, measured again whenever
 * the area changes size: a placeholder's lines beyond the area's are cut off mid-sentence. */
export function useFittingPlaceholder(
  area: React.RefObject<HTMLTextAreaElement>,
  texts: string[]
): string {
  const [fitting, setFitting] = useState(0);
  const latest = useRef(texts);
  latest.current = texts;
  const key = texts.join('\n');
  useLayoutEffect(() => {
    const node = area.current;
    if (!node) {
      return;
    }
    const sizes = new ResizeObserver(() => setFitting(firstFitting(node, latest.current)));
    sizes.observe(node);
    return () => sizes.disconnect();
  }, [area, key]);
  return texts[Math.min(fitting, texts.length - 1)];
}

/** The index of the first of `texts` whose lines, wrapped as `area` wraps them, fit its height
 * (the last one if none does). */
function firstFitting(area: HTMLTextAreaElement, texts: string[]): number {
  const style = getComputedStyle(area);
  const copy = document.createElement('div');
  for (const name of [
    'font',
    'letterSpacing',
    'lineHeight',
    'wordBreak',
    'overflowWrap'
  ] as const) {
    copy.style[name] = style[name];
  }
  const width = area.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  Object.assign(copy.style, {
    position: 'fixed',
    visibility: 'hidden',
    whiteSpace: 'pre-wrap',
    width: `${width}px`
  });
  const height = area.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  document.body.appendChild(copy);
  const found = texts.findIndex(text => {
    copy.textContent = text;
    return copy.offsetHeight <= height + 1;
  });
  copy.remove();
  return found === -1 ? texts.length - 1 : found;
}
