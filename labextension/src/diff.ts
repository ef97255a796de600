/**
 * A diff's lines as people read them. Every diff the room shows keeps the unified diff's
 * grammar: git's for plain files, and for notebooks a `@@ cell 3 (code): changed @@` line per
 * cell with `\ ` lines summing up outputs and metadata
 * (jupyter_copilot_room/notebooks/notebook_diff.py). A file's header (`diff --git`, `index`,
 * `---`, `+++`) becomes one line naming the file; only lines before a file's first hunk are
 * header lines, so a removed line that starts with `--` stays a removed line.
 */

export type DiffLineKind = 'file' | 'cell' | 'hunk' | 'added' | 'removed' | 'context' | 'note';

export interface IDiffLine {
  kind: DiffLineKind;
  text: string;
}

const CELL = /^@@ (cell \d+ \([^)]*\): \w+) @@$/;

export function diffLines(diff: string): IDiffLine[] {
  const lines: IDiffLine[] = [];
  let header = true;
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('diff --git ')) {
      header = true;
      lines.push({ kind: 'file', text: pathOf(line.slice('diff --git '.length)) });
    } else if (line.startsWith('@@')) {
      header = false;
      const cell = CELL.exec(line);
      lines.push(cell ? { kind: 'cell', text: cell[1] } : { kind: 'hunk', text: line });
    } else if (header) {
      const said = headerNote(line);
      const last = lines[lines.length - 1];
      if (said && !(last?.kind === 'note' && last.text === said)) {
        lines.push({ kind: 'note', text: said });
      }
    } else {
      lines.push(bodyLine(line));
    }
  }
  return lines;
}

function bodyLine(line: string): IDiffLine {
  switch (line[0]) {
    case '+':
      return { kind: 'added', text: line.slice(1) };
    case '-':
      return { kind: 'removed', text: line.slice(1) };
    case '\\':
      return { kind: 'note', text: line.slice(1).trimStart() };
    default:
      return { kind: 'context', text: line.slice(1) };
  }
}

/** What a header line tells a reader beyond the file's name ('' for nothing). */
function headerNote(line: string): string {
  if (line === '--- /dev/null' || line.startsWith('new file mode')) {
    return 'new file';
  }
  if (line === '+++ /dev/null' || line.startsWith('deleted file mode')) {
    return 'deleted';
  }
  if (/^(index |--- |\+\+\+ |old mode|new mode|similarity|rename )/.test(line) || !line) {
    return '';
  }
  return line; // "Binary files a/x and b/x differ"
}

/** `a/P b/P` (the room shows no renames) as P; anything else as it came. */
function pathOf(names: string): string {
  const half = (names.length - 1) / 2;
  if (
    names.startsWith('a/') &&
    Number.isInteger(half) &&
    names.slice(half + 1, half + 3) === 'b/'
  ) {
    const path = names.slice(2, half);
    if (names.slice(half + 3) === path) {
      return path;
    }
  }
  return names;
}
