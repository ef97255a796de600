/**
 * A streaming reply's Markdown cut into blocks that render alone exactly as they render together
 * (components/entries/reply.tsx renders each finished block once and only the open one again).
 *
 * A cut is made only at a blank line outside a code fence, a math block (`$$`) and a multi-line
 * HTML block, and only when the next line is known and starts a new block for sure: a line at
 * column 0 that cannot continue what came before (not indented, no list marker, no table or
 * setext underline). Cutting less is always safe, so anything in doubt stays in one block; a text
 * with link reference definitions or footnotes (`[x]: url`, used anywhere) is never cut. As the text only
 * grows, a cut once made stays: finished blocks never change.
 */

/** `finished`: blocks that will not change; `open`: the rest, still growing (may be ''). */
export interface IBlocks {
  finished: string[];
  open: string;
}

/** Fences at any indentation (a list item's code block too): more fences, fewer cuts. */
const FENCE = /^\s*(`{3,}|~{3,})(.*)$/;
const REFERENCE = /^ {0,3}\[[^\]\n]+\]:/m;
/** HTML blocks of CommonMark's kinds 1 to 5 end at their closing text, not at a blank line. */
const HTML_BLOCKS: [RegExp, RegExp][] = [
  [/^ {0,3}<(pre|script|style|textarea)([\s>]|$)/i, /<\/(pre|script|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/]
];
/** The first character of a line that may continue the block before a blank line: indented (a
 * list item's paragraph, indented code), a list item (one loose list), a quote. */
const MAY_CONTINUE = /^[ \t\-*+\d>]/;

export function splitBlocks(text: string): IBlocks {
  if (REFERENCE.test(text)) {
    return { finished: [], open: text };
  }
  const lines = text.split('\n');
  const finished: string[] = [];
  let start = 0; // the line the open block starts at
  let fence: { char: string; length: number } | null = null;
  let htmlEnd: RegExp | null = null;
  let math = false;
  let blank = false; // the previous line was blank (outside fences and HTML blocks)
  // The last line may still grow: it is looked at for cuts only once a newline ends it, except
  // that its first character (all a cut needs) is already final.
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const complete = n < lines.length - 1;
    if (fence) {
      const close = FENCE.exec(line);
      if (
        complete &&
        close &&
        close[1][0] === fence.char &&
        close[1].length >= fence.length &&
        !close[2].trim()
      ) {
        fence = null;
      }
      blank = false;
      continue;
    }
    if (htmlEnd) {
      if (htmlEnd.test(line) && complete) {
        htmlEnd = null;
      }
      blank = false;
      continue;
    }
    if (math) {
      if (countMath(line) % 2 === 1 && complete) {
        math = false;
      }
      blank = false;
      continue;
    }
    if (!line.trim()) {
      blank = complete || blank;
      continue;
    }
    if (blank && n > start && !MAY_CONTINUE.test(line)) {
      finished.push(lines.slice(start, n).join('\n'));
      start = n;
    }
    blank = false;
    if (!complete) {
      break;
    }
    const open = FENCE.exec(line);
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = { char: open[1][0], length: open[1].length };
      continue;
    }
    const html = HTML_BLOCKS.find(([begins]) => begins.test(line));
    if (html) {
      // Its closing text may be on its first line, after the opening.
      const rest = line.replace(html[0], '');
      htmlEnd = html[1].test(rest) ? null : html[1];
      continue;
    }
    if (countMath(line) % 2 === 1) {
      math = true;
    }
  }
  return { finished, open: lines.slice(start).join('\n') };
}

function countMath(line: string): number {
  return line.split('$$').length - 1;
}
