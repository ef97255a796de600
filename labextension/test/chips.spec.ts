import { describe, expect, it } from 'vitest';

import { chipLabel, chipTitle, ContextTray, MAX_CHIPS } from '../src/chips';

describe('context chips', () => {
  it('say what they name in a few words, the whole path in the tooltip', () => {
    expect(chipLabel({ kind: 'cells', path: 'work/a.ipynb', cell_ids: ['x', 'y'] })).toBe(
      '2 cells of a.ipynb'
    );
    expect(chipLabel({ kind: 'selection', path: 'f.py', start_line: 3, end_line: 7 })).toBe(
      'Lines 3–7 of f.py'
    );
    expect(chipLabel({ kind: 'output', path: 'a.ipynb', mime: 'image/png', bytes: 10 })).toBe(
      'Output (image) of a.ipynb'
    );
    expect(chipTitle({ kind: 'output', path: 'w/a.ipynb', mime: 'image/png', bytes: 2048 })).toBe(
      'w/a.ipynb · image/png, 2,048 bytes'
    );
  });

  it('are attached once each, at most as many as the room takes', () => {
    const tray = new ContextTray();
    let changes = 0;
    tray.changed.connect(() => changes++);
    expect(tray.add({ kind: 'notebook', path: 'a.ipynb' })).toBe(true);
    expect(tray.add({ kind: 'notebook', path: 'a.ipynb' })).toBe(true);
    expect(tray.chips).toHaveLength(1);
    for (let n = 1; n < MAX_CHIPS; n++) {
      tray.add({ kind: 'file', path: `f${n}.py` });
    }
    expect(tray.add({ kind: 'file', path: 'one-too-many.py' })).toBe(false);
    expect(tray.chips).toHaveLength(MAX_CHIPS);
    tray.remove(0);
    expect(tray.chips[0].path).toBe('f1.py');
    tray.clear();
    expect(tray.chips).toHaveLength(0);
    expect(changes).toBe(MAX_CHIPS + 2);
  });
});
