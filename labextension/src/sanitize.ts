/**
 * The one sanitizing step for the agent's output.
 *
 * Everything the room renders as HTML comes from the room document, which the agent writes, and
 * the agent may be steered by text in the repository. Whatever loads by itself in one browser
 * loads in every browser in the room, so nothing rendered from agent output may fetch anything
 * without a click: an image from another origin becomes a "Load image from <host>" button that
 * loads it for the person who clicks only; `data:` and same-origin images stay. Forms, controls,
 * frames, embeds, media, styles and metadata elements do not survive, nor do attributes that
 * fetch (srcset, background, poster...) or CSS that can (url(), image-set()...).
 *
 * Nor may it take a name in the page: no `id`, `data-jupyter-id` or `name` survives, and the
 * ids and `¶` links JupyterLab's markdown renderer gives headings after sanitizing are taken off.
 * The page has one namespace: JupyterLab follows a `#name` link to the first
 * `[data-jupyter-id=name]` (or `#name`) anywhere in it, and the panel comes before the notebooks,
 * so two replies' "## Summary" would send each other's links to the first, and a reply would
 * catch a notebook's link to its own heading. Unique ids would not help: nobody can link to a
 * reply's heading from outside the panel, and each `¶` is one more tab stop.
 *
 * `roomRendermime` gives the panel a rendermime whose sanitizer is `AgentOutputSanitizer`:
 * JupyterLab's own sanitizer first, then `cleanAgentHtml` on an inert document, before the
 * markdown renderer sets the HTML on a live node (where an `<img>` would start its fetch). Its
 * markdown parser leaves mermaid diagrams as source, since JupyterLab draws them in the live
 * document before any sanitizer runs; its markdown renderer takes the headings' names off.
 * Everything else the panel shows from the document is React text, which renders no HTML.
 * What survives is listed in ./allowlist.ts; images become placeholders in ./remoteimages.ts.
 */
import { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';

import {
  DROPPED,
  FETCHING_CSS,
  GLOBAL_ATTRIBUTES,
  KEPT,
  LINK_PROTOCOLS,
  TAG_ATTRIBUTES
} from './allowlist';
import { cleanImage } from './remoteimages';

export {
  imageSource,
  loadRemoteImage,
  reloadChosenImages,
  REMOTE_IMAGE_CLASS
} from './remoteimages';
export type { ImageSource } from './remoteimages';

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/**
 * Agent-output HTML made safe to set on a live node: parsed in an inert document (nothing it
 * names is fetched there), cleaned, and serialized again. `base` is the URL relative URLs
 * resolve against (the live document's), to tell same-origin images from remote ones.
 */
export function cleanAgentHtml(html: string, base: string = document.baseURI): string {
  const root = inertDocument().createElement('div');
  root.innerHTML = html;
  cleanChildren(root, base);
  return root.innerHTML;
}

/** One inert document for every call: making one per call was half of this cleaning's time
 * while a reply streams (its open block is cleaned again each frame). Nothing is added to it. */
let inert: Document | null = null;

function inertDocument(): Document {
  inert ??= new DOMParser().parseFromString('<!DOCTYPE html><body></body>', 'text/html');
  return inert;
}

function cleanChildren(parent: Element, base: string): void {
  for (const child of Array.from(parent.childNodes)) {
    if (child.nodeType === child.TEXT_NODE) {
      continue;
    }
    if (child.nodeType !== child.ELEMENT_NODE) {
      child.remove(); // comments, processing instructions, CDATA
      continue;
    }
    const element = child as Element;
    const tag = element.localName;
    if (element.namespaceURI !== HTML_NAMESPACE || DROPPED.has(tag)) {
      element.remove();
    } else if (tag === 'img') {
      element.replaceWith(cleanImage(element, base));
    } else {
      cleanChildren(element, base);
      if (KEPT.has(tag)) {
        cleanAttributes(element, base);
      } else {
        element.replaceWith(...Array.from(element.childNodes)); // form, label, unknown tags...
      }
    }
  }
}

function cleanAttributes(element: Element, base: string): void {
  const tag = element.localName;
  for (const { name, value } of Array.from(element.attributes)) {
    const keep =
      (GLOBAL_ATTRIBUTES.has(name) || TAG_ATTRIBUTES[tag]?.has(name)) &&
      !(name === 'style' && FETCHING_CSS.test(value)) &&
      !(name === 'href' && !isFollowableLink(value, base));
    if (!keep) {
      element.removeAttribute(name);
    }
  }
  // The room's own classes stay the room's: a reply cannot dress up as a card or a placeholder.
  const own = Array.from(element.classList).filter(name => name.startsWith('jp-CopilotRoom'));
  element.classList.remove(...own);
  if (element.getAttribute('class') === '') {
    element.removeAttribute('class');
  }
}

/** A URL from the room document the panel may show as a link out of the room (a prompt's
 * `link`): an absolute http(s) URL, parsed; anything else (javascript:, data:, relative,
 * unparsable) is null. */
export function webLink(href: string | null | undefined): URL | null {
  let url: URL;
  try {
    url = new URL(href ?? '');
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

function isFollowableLink(href: string, base: string): boolean {
  try {
    return LINK_PROTOCOLS.has(new URL(href, base).protocol);
  } catch {
    return false;
  }
}

/** JupyterLab's sanitizer, then `cleanAgentHtml`. */
export class AgentOutputSanitizer implements IRenderMime.ISanitizer {
  constructor(
    private readonly _inner: IRenderMime.ISanitizer,
    private readonly _base: () => string = () => document.baseURI
  ) {}

  sanitize(dirty: string, options?: IRenderMime.ISanitizerOptions): string {
    return cleanAgentHtml(this._inner.sanitize(dirty, options), this._base());
  }

  getAutolink(): boolean {
    return this._inner.getAutolink?.() ?? true;
  }

  get allowNamedProperties(): boolean {
    return this._inner.allowNamedProperties ?? false;
  }
}

/** A fenced block whose info string is `mermaid`, as marked reads it (trimmed, no entities),
 * after what may stand before a fence: indentation, quote and list markers. (No `.*` before the
 * fence: a long line of backticks must not take quadratic time.) */
const DIAGRAM_FENCE = /^([ \t>*+\-.)\d]*(?:`{3,}|~{3,})[^\S\n]*)mermaid([^\S\n]*)$/gm;

/** Markdown whose diagrams show as their source. JupyterLab draws a `mermaid` block while it
 * parses, in the live document, before any sanitizer sees the HTML: a label's `<img>` or a
 * diagram's CSS would be fetched there. */
export function withoutDiagrams(markdown: string): string {
  return markdown.replace(DIAGRAM_FENCE, '$1mermaid-source$2');
}

/** The rendermime the panel renders agent output with: the app's, with the agent-output
 * sanitizer, a markdown parser that draws no diagrams and a markdown renderer that leaves no
 * names on headings. Render with `trusted: false` so the sanitizer runs. */
export function roomRendermime(rendermime: IRenderMimeRegistry): IRenderMimeRegistry {
  const parser = rendermime.markdownParser;
  const room = rendermime.clone({
    sanitizer: new AgentOutputSanitizer(rendermime.sanitizer),
    markdownParser: parser
      ? { render: source => parser.render(withoutDiagrams(source)) }
      : undefined
  });
  const markdown = room.getFactory(MARKDOWN);
  if (markdown) {
    room.addFactory(
      {
        ...markdown,
        createRenderer: options => withoutHeadingNames(markdown.createRenderer(options))
      },
      room.getRank(MARKDOWN)
    );
  }
  return room;
}

const MARKDOWN = 'text/markdown';

/** `renderer`, taking off after each render what JupyterLab's markdown renderer gives every
 * heading once the sanitizer is done: its name (`id` or `data-jupyter-id`) and its `¶` link. */
function withoutHeadingNames(renderer: IRenderMime.IRenderer): IRenderMime.IRenderer {
  const renderModel = renderer.renderModel.bind(renderer);
  renderer.renderModel = async model => {
    await renderModel(model);
    dropHeadingNames(renderer.node);
  };
  return renderer;
}

/** Take the headings' names and `¶` links off `node` (see `withoutHeadingNames`). */
function dropHeadingNames(node: Element): void {
  for (const link of Array.from(node.querySelectorAll('a.jp-InternalAnchorLink'))) {
    link.remove();
  }
  for (const heading of Array.from(node.querySelectorAll('h1, h2, h3, h4, h5, h6'))) {
    heading.removeAttribute('id');
    heading.removeAttribute('data-jupyter-id');
  }
}
