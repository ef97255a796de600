/** Copy buttons: a reply's text, a code block in a prompt, and the code blocks of rendered
 * Markdown. Buttons, so the keyboard reaches them; the clipboard is the browser's
 * (`navigator.clipboard`), and the button says whether the copy worked. */
import { checkIcon, copyIcon } from '@jupyterlab/ui-components';
import React, { useEffect, useState } from 'react';

const SAID_FOR_MS = 1500;

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no clipboard (an insecure origin) or no permission
  }
}

export function CopyButton(props: { text: string; label: string }): JSX.Element {
  const [said, setSaid] = useState<'' | 'Copied' | 'Copy failed'>('');
  useEffect(() => {
    if (!said) {
      return;
    }
    const timer = window.setTimeout(() => setSaid(''), SAID_FOR_MS);
    return () => window.clearTimeout(timer);
  }, [said]);
  const Icon = said === 'Copied' ? checkIcon : copyIcon;
  return (
    <button
      type="button"
      className="jp-CopilotRoom-copy"
      aria-label={said || props.label}
      title={said || props.label}
      onClick={() => void copyText(props.text).then(ok => setSaid(ok ? 'Copied' : 'Copy failed'))}
    >
      <Icon.react tag="span" elementSize="small" />
    </button>
  );
}

export const CODE_COPY_CLASS = 'jp-CopilotRoom-copyCode';

/** Give each code block of rendered Markdown (`<pre>`) a copy button on a bar above it (not
 * over the code, which it would hide at a narrow width). Called after every render. */
export function addCodeCopyButtons(node: HTMLElement): void {
  for (const pre of Array.from(node.querySelectorAll('pre'))) {
    if (pre.previousElementSibling?.classList.contains('jp-CopilotRoom-codeBar')) {
      continue;
    }
    const bar = document.createElement('div');
    bar.className = 'jp-CopilotRoom-codeBar';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `jp-CopilotRoom-copy ${CODE_COPY_CLASS}`;
    button.setAttribute('aria-label', 'Copy this code');
    button.title = 'Copy this code';
    button.appendChild(copyIcon.element({ tag: 'span', elementSize: 'small' }));
    bar.appendChild(button);
    pre.before(bar);
    pre.classList.add('jp-CopilotRoom-code');
  }
}

/** A click on one of `addCodeCopyButtons`' buttons: copy its block. True if it was one. */
export function copyCodeOnClick(target: Element, within: HTMLElement): boolean {
  const button = target.closest<HTMLButtonElement>(`button.${CODE_COPY_CLASS}`);
  if (!button || !within.contains(button)) {
    return false;
  }
  const pre = button.parentElement?.nextElementSibling;
  void copyText(pre?.textContent ?? '').then(ok => {
    const said = ok ? 'Copied' : 'Copy failed';
    button.setAttribute('aria-label', said);
    button.title = said;
    window.setTimeout(() => {
      button.setAttribute('aria-label', 'Copy this code');
      button.title = 'Copy this code';
    }, SAID_FOR_MS);
  });
  return true;
}
