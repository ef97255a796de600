/** A card's text that the room may have cut: shown as it came, and when cut, how much is hidden
 * and a "Show all" that loads the whole (see ../../hidden.ts). */
import React from 'react';

import { hiddenWords, IHidden, IWholeCard, wholeText } from '../../hidden';
import { DiffView } from '../diffview';

export function CutText(props: {
  text: string;
  /** What the card names this text (`summary`, `diff`, `code`). */
  field: string;
  hidden: IHidden | undefined;
  /** The whole card, once someone asked for it. */
  whole: IWholeCard | null;
  busy: boolean;
  onShowAll: () => void;
  className: string;
  /** Shown as a diff, line by line (../diffview.tsx). */
  asDiff?: boolean;
}): JSX.Element {
  const { text, field, hidden, whole, busy, onShowAll, className, asDiff } = props;
  const loaded = hidden && whole ? wholeText(whole, field) : null;
  const shown = loaded?.text ?? text;
  return (
    <>
      {asDiff ? (
        <DiffView diff={shown} className={className} fromFirstChange />
      ) : (
        <pre className={className} data-field={field}>
          {shown}
        </pre>
      )}
      {hidden && !loaded && (
        <div className="jp-CopilotRoom-hidden" role="note">
          <span>{hiddenWords(hidden)}</span>
          <button
            type="button"
            className="jp-mod-styled jp-CopilotRoom-small"
            disabled={busy}
            onClick={onShowAll}
          >
            Show all
          </button>
        </div>
      )}
      {loaded?.beyond && (
        <div className="jp-CopilotRoom-hidden" role="note">
          {loaded.beyond}
        </div>
      )}
    </>
  );
}
