import { describe, expect, it } from 'vitest';

import { diffLines } from '../src/diff';

describe('diffLines', () => {
  it('reads a notebook change cell by cell under one line naming the file', () => {
    const diff =
      'diff --git a/sales.ipynb b/sales.ipynb\n--- a/sales.ipynb\n+++ b/sales.ipynb\n' +
      '@@ cell 2 (code): changed @@\n total = 0\n-total = 1\n+total = 2\n' +
      '\\ outputs: none -> 1 stream\n';
    expect(diffLines(diff)).toEqual([
      { kind: 'file', text: 'sales.ipynb' },
      { kind: 'cell', text: 'cell 2 (code): changed' },
      { kind: 'context', text: 'total = 0' },
      { kind: 'removed', text: 'total = 1' },
      { kind: 'added', text: 'total = 2' },
      { kind: 'note', text: 'outputs: none -> 1 stream' }
    ]);
  });

  it('keeps a removed line that starts with dashes a removed line', () => {
    const diff =
      'diff --git a/q.sql b/q.sql\nindex 1..2 100644\n--- a/q.sql\n+++ b/q.sql\n' +
      '@@ -1,2 +1 @@\n--- a comment\n select 1\n';
    expect(diffLines(diff).map(line => line.kind)).toEqual(['file', 'hunk', 'removed', 'context']);
    expect(diffLines(diff)[2].text).toBe('-- a comment');
  });

  it('says a file is new or deleted once, and names a binary file', () => {
    const diff =
      'diff --git a/new.md b/new.md\nnew file mode 100644\nindex 0..1\n--- /dev/null\n' +
      '+++ b/new.md\n@@ -0,0 +1 @@\n+hi\n' +
      'diff --git a/logo.png b/logo.png\nindex 1..2 100644\n' +
      'Binary files a/logo.png and b/logo.png differ\n';
    expect(diffLines(diff)).toEqual([
      { kind: 'file', text: 'new.md' },
      { kind: 'note', text: 'new file' },
      { kind: 'hunk', text: '@@ -0,0 +1 @@' },
      { kind: 'added', text: 'hi' },
      { kind: 'file', text: 'logo.png' },
      { kind: 'note', text: 'Binary files a/logo.png and b/logo.png differ' }
    ]);
  });

  it('reads a cell diff of the room’s own notebook edit, which names no file', () => {
    expect(diffLines('@@ cell 1 (markdown): added @@\n+# Plan\n')).toEqual([
      { kind: 'cell', text: 'cell 1 (markdown): added' },
      { kind: 'added', text: '# Plan' }
    ]);
  });

  it('keeps a path with spaces whole', () => {
    expect(diffLines('diff --git a/my notes.md b/my notes.md\n')[0].text).toBe('my notes.md');
  });
});
