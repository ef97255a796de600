/** The agent's reply, labelled by the agent that wrote it (Copilot unless the entry names
 * another), streamed as it comes and rendered as Markdown,
 * with copy buttons for the whole reply and for each code block; the turn's last reply also
 * says what the turn cost. */
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import React, { useEffect, useRef } from 'react';

import { splitBlocks } from '../../blocks';
import { IAssistantEntry } from '../../entries';
import { IEntrySource, IRoomModel } from '../../model';
import { agentName } from '../../names';
import { replyPace } from '../../pace';
import { loadRemoteImage, reloadChosenImages, REMOTE_IMAGE_CLASS } from '../../sanitize';
import { useEntry } from '../hooks';
import { QuoteButton } from '../quote';
import { addCodeCopyButtons, copyCodeOnClick, CopyButton } from './copy';
import { formatTime } from './time';

export function ReplyEntry(props: {
  entry: IAssistantEntry;
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { entry, model } = props;
  const prompt = model.entries.find(source => source.id === entry.prompt_id);
  const who = agentName(entry.agent);
  return (
    <div
      className="jp-CopilotRoom-entry jp-CopilotRoom-reply"
      data-state={entry.state}
      aria-busy={entry.state === 'streaming'}
    >
      <div className="jp-CopilotRoom-entryHeader">
        <span className="jp-CopilotRoom-agentName">{who}</span>
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
        {entry.state !== 'streaming' && entry.body && (
          <CopyButton text={entry.body} label="Copy this reply" />
        )}
        {entry.state !== 'streaming' && <QuoteButton text={entry.body} who={who} model={model} />}
      </div>
      <Markdown text={entry.body} rendermime={props.rendermime} />
      {entry.state === 'partial' && (
        <div className="jp-CopilotRoom-note">The reply stopped here.</div>
      )}
      {prompt && <TurnCost prompt={prompt} reply={entry} model={model} />}
    </div>
  );
}

/** What the turn cost, under its last reply once the turn has ended (usage comes last). */
function TurnCost(props: {
  prompt: IEntrySource;
  reply: IAssistantEntry;
  model: IRoomModel;
}): JSX.Element | null {
  const prompt = useEntry(props.prompt);
  const usage = prompt.kind === 'prompt' ? prompt.usage : undefined;
  if (!usage || !isLastReply(props.model, props.reply)) {
    return null;
  }
  const tokens = (n: number) => n.toLocaleString('en');
  return (
    <div className="jp-CopilotRoom-usage">
      {usage.model}: {tokens(usage.input_tokens)} tokens in, {tokens(usage.output_tokens)} out
      {typeof usage.ai_credits === 'number' && ` · ${credits(usage.ai_credits)} AI Credits`}
    </div>
  );
}

/** "0.042": a turn's credits are often a small fraction of one. */
export function credits(n: number): string {
  return n.toLocaleString('en', { maximumSignificantDigits: 3 });
}

/** No later reply of the same turn (a turn's entries run until the next prompt). */
function isLastReply(model: IRoomModel, reply: IAssistantEntry): boolean {
  const sources = model.entries;
  for (let n = sources.findIndex(s => s.id === reply.id) + 1; n > 0 && n < sources.length; n++) {
    const later = sources[n].read();
    if (later.kind === 'prompt') {
      break;
    }
    if (later.kind === 'assistant' && later.prompt_id === reply.prompt_id) {
      return false;
    }
  }
  return true;
}

/** Markdown through JupyterLab's rendermime, untrusted: the panel's rendermime sanitizes it
 * (../../sanitize.ts), so a remote image shows as a placeholder; clicking one loads it here.
 *
 * A streaming reply is rendered block by block (../../blocks.ts), each block by a renderer of its
 * own: a finished block is rendered once and kept, only the open one again as the text grows, so
 * a long reply costs the same per frame as a short one. The text is shown at the page's pace
 * (../../pace.ts, at most every 50 ms): a delta may finish a block and open another, and any
 * change is a frame of style, layout and paint of the whole page (benchmarks/README.md). */
export function Markdown(props: { text: string; rendermime: IRenderMimeRegistry }): JSX.Element {
  const { text, rendermime } = props;
  const host = useRef<HTMLDivElement>(null);
  const blocks = useRef<IBlock[]>([]);
  // The remote images this person chose to load: loaded again when a block re-renders.
  const chosen = useRef(new Set<string>());
  // The latest text; what cancels its showing while that waits for the page's pace.
  const latest = useRef(text);
  latest.current = text;
  const waiting = useRef<(() => void) | null>(null);
  useEffect(
    () => () => {
      waiting.current?.();
      waiting.current = null;
      drop(blocks.current.splice(0));
    },
    [rendermime]
  );
  useEffect(() => {
    const node = host.current;
    if (!node || waiting.current) {
      return;
    }
    const show = () => {
      waiting.current = null;
      const { finished, open } = splitBlocks(latest.current);
      const wanted = [...finished, open];
      // Fewer blocks than before: a link reference definition arrived, which joins them all.
      drop(blocks.current.splice(wanted.length));
      wanted.forEach((block, n) => {
        let shown = blocks.current[n];
        if (!shown) {
          const renderer = rendermime.createRenderer('text/markdown');
          node.appendChild(renderer.node);
          shown = blocks.current[n] = { text: null, renderer, rendering: false };
        }
        render(shown, block, chosen.current);
      });
    };
    // A new entry shows at once (the transcript's entries, as it opens, all in the same frame);
    // its later text at the page's pace.
    if (blocks.current.length === 0) {
      show();
    } else {
      waiting.current = replyPace.run(show);
    }
  }, [text, rendermime]);
  const onClick = (event: React.MouseEvent<HTMLDivElement>) => {
    const target = event.target instanceof Element ? event.target : null;
    if (target && host.current && copyCodeOnClick(target, host.current)) {
      return;
    }
    const placeholder = target?.closest<HTMLElement>(`button.${REMOTE_IMAGE_CLASS}`);
    if (placeholder && host.current?.contains(placeholder)) {
      chosen.current.add(placeholder.dataset.src ?? '');
      loadRemoteImage(placeholder);
    }
  };
  return <div className="jp-CopilotRoom-markdown" ref={host} onClick={onClick} />;
}

type Renderer = ReturnType<IRenderMimeRegistry['createRenderer']>;

/** A block's renderer, the text it shows (or is rendering) and whether a render is on its way. */
interface IBlock {
  text: string | null;
  renderer: Renderer;
  rendering: boolean;
}

/** Show `text` in `block`: one render at a time (two at once would interleave their work on the
 * same node), the latest text once the one on its way is done. Trailing blank lines render as
 * nothing, so a block that only gained them is not rendered again. */
function render(block: IBlock, text: string, chosen: Set<string>): void {
  if (block.text !== null && block.text.trimEnd() === text.trimEnd()) {
    return;
  }
  block.text = text;
  if (block.rendering) {
    return;
  }
  block.rendering = true;
  const { renderer } = block;
  void renderer
    .renderModel(new MimeModel({ data: { 'text/markdown': text }, trusted: false }))
    .then(() => {
      reloadChosenImages(renderer.node, chosen);
      addCodeCopyButtons(renderer.node);
      scrollTablesSideways(renderer.node);
    })
    .finally(() => {
      block.rendering = false;
      if (block.text !== text && block.text !== null) {
        const latest = block.text;
        block.text = text;
        render(block, latest, chosen);
      }
    });
}

/** Put each table of `node` in a box of its own that scrolls sideways: a table wider than the
 * panel would otherwise be cut off at the entry's edge (entries contain their paint, see
 * style/base.css). The box takes the keyboard focus, so keys scroll it too. */
function scrollTablesSideways(node: HTMLElement): void {
  for (const table of Array.from(node.querySelectorAll('table'))) {
    if (table.parentElement?.classList.contains(TABLE_BOX)) {
      continue;
    }
    const box = document.createElement('div');
    box.className = TABLE_BOX;
    box.tabIndex = 0;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Table, scrolls sideways');
    table.before(box);
    box.appendChild(table);
  }
}

const TABLE_BOX = 'jp-CopilotRoom-tableBox';

function drop(blocks: IBlock[]): void {
  for (const { renderer } of blocks) {
    renderer.node.remove();
    renderer.dispose();
  }
}
