/** A diff coloured line by line (see ../diff.ts): files and cells as headings, added and
 * removed lines marked by colour and by their sign, so it reads without colour too. */
import React from 'react';

import { diffLines, IDiffLine } from '../diff';

const SIGN: Partial<Record<IDiffLine['kind'], string>> = {
  added: '+',
  removed: '-',
  context: ' '
};

export function DiffView(props: { diff: string; className?: string }): JSX.Element {
  const lines = diffLines(props.diff);
  return (
    <pre className={`jp-CopilotRoom-diffView ${props.className ?? ''}`} data-field="diff">
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
