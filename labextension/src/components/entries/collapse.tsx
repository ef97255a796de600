/** Long text shown in part until the reader asks for all of it: one person's 20,000-character
 * prompt, or a command's long output, must not push the rest of the transcript away for
 * everyone. The whole text stays in the page (find, copy, screen readers); only its height is
 * held back. */
import React, { useId, useState } from 'react';

/** Longer than this (characters or lines) is collapsed. */
export const COLLAPSE_CHARS = 1500;
export const COLLAPSE_LINES = 20;

export function isLong(text: string): boolean {
  return text.length > COLLAPSE_CHARS || text.split('\n').length > COLLAPSE_LINES;
}

export function Collapsible(props: {
  text: string;
  /** What the text is, for the button's name: "prompt", "output". */
  what: string;
  children: React.ReactNode;
}): JSX.Element {
  const { text, what, children } = props;
  const [open, setOpen] = useState(false);
  const id = useId();
  const long = isLong(text);
  return (
    <div className="jp-CopilotRoom-collapsible" data-collapsed={long && !open}>
      <div id={id} className="jp-CopilotRoom-collapsibleBody">
        {children}
      </div>
      {long && (
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-showMore"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen(!open)}
        >
          {open
            ? `Show less of the ${what}`
            : `Show more of the ${what} (${text.length.toLocaleString('en')} characters)`}
        </button>
      )}
    </div>
  );
}
