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
 */
import { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';

/** The class of the click-to-load placeholder of a remote image. */
export const REMOTE_IMAGE_CLASS = 'jp-CopilotRoom-remoteImage';

/** Elements kept (their attributes filtered). Anything not listed is unwrapped (its children
 * kept) unless it is in DROPPED. */
const KEPT = new Set([
  'a',
  'abbr',
  'acronym',
  'address',
  'article',
  'aside',
  'b',
  'bdi',
  'bdo',
  'big',
  'blockquote',
  'br',
  'caption',
  'center',
  'cite',
  'code',
  'col',
  'colgroup',
  'data',
  'dd',
  'del',
  'details',
  'dfn',
  'dir',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'font',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'i',
  'ins',
  'kbd',
  'li',
  'mark',
  'meter',
  'nav',
  'nobr',
  'ol',
  'p',
  'pre',
  'progress',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'section',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'tt',
  'u',
  'ul',
  'var',
  'wbr'
]);

/** Elements removed with everything inside them: controls, frames, embeds, media, scripts,
 * styles, metadata, and foreign content (SVG, MathML). */
const DROPPED = new Set([
  'applet',
  'area',
  'audio',
  'base',
  'basefont',
  'bgsound',
  'button',
  'canvas',
  'datalist',
  'dialog',
  'embed',
  'fencedframe',
  'frame',
  'frameset',
  'head',
  'iframe',
  'input',
  'keygen',
  'link',
  'map',
  'marquee',
  'math',
  'meta',
  'noembed',
  'noframes',
  'noscript',
  'object',
  'optgroup',
  'option',
  'param',
  'picture',
  'plaintext',
  'portal',
  'script',
  'select',
  'slot',
  'source',
  'style',
  'svg',
  'template',
  'textarea',
  'title',
  'track',
  'video',
  'xmp'
]);

/** Attributes kept on any kept element (`style` only when it cannot fetch); no names. */
const GLOBAL_ATTRIBUTES = new Set([
  'align',
  'class',
  'dir',
  'lang',
  'style',
  'title',
  'translate',
  'valign'
]);

const TAG_ATTRIBUTES: Record<string, ReadonlySet<string>> = {
  a: new Set(['href', 'hreflang', 'rel', 'target']),
  col: new Set(['span', 'width']),
  colgroup: new Set(['span', 'width']),
  data: new Set(['value']),
  del: new Set(['datetime']),
  details: new Set(['open']),
  font: new Set(['color', 'face', 'size']),
  ins: new Set(['datetime']),
  li: new Set(['type', 'value']),
  meter: new Set(['high', 'low', 'max', 'min', 'optimum', 'value']),
  ol: new Set(['reversed', 'start', 'type']),
  progress: new Set(['max', 'value']),
  table: new Set(['border', 'cellpadding', 'cellspacing', 'width']),
  td: new Set(['colspan', 'headers', 'rowspan', 'width']),
  th: new Set(['abbr', 'colspan', 'headers', 'rowspan', 'scope', 'width']),
  time: new Set(['datetime']),
  ul: new Set(['type'])
};

/** CSS that could fetch something: url() and its relatives, and any escape or at-rule that could
 * spell one in disguise. A style attribute with any of these is dropped whole. */
const FETCHING_CSS = /[\\@]|(?:url|image|image-set|cross-fade|element|src|attr|paint)\s*\(/i;

/** Link schemes a click may follow. */
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/** Where an image's `src` points: loaded as it is, behind a click, or not at all. */
export type ImageSource =
  | { kind: 'inline'; url: string }
  | { kind: 'remote'; url: string; host: string }
  | { kind: 'none' };

/** `data:` URLs and URLs of `base`'s origin load as they are; other http(s) URLs wait for a
 * click; anything else (javascript:, file:, attachment:, unparsable) is not loaded. */
export function imageSource(src: string | null, base: string): ImageSource {
  const text = (src ?? '').trim();
  if (!text) {
    return { kind: 'none' };
  }
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return { kind: 'none' };
  }
  if (url.protocol === 'data:') {
    return { kind: 'inline', url: text };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'none' };
  }
  if (url.origin === new URL(base).origin) {
    return { kind: 'inline', url: url.href };
  }
  return { kind: 'remote', url: url.href, host: url.host };
}

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

/** An image as it may be shown: an `<img>` of an inline source, a placeholder button for a
 * remote one, its alt text otherwise. */
function cleanImage(img: Element, base: string): Node {
  const doc = img.ownerDocument;
  const alt = img.getAttribute('alt') ?? '';
  const source = imageSource(img.getAttribute('src'), base);
  if (source.kind === 'none') {
    return doc.createTextNode(alt);
  }
  if (source.kind === 'inline') {
    const kept = doc.createElement('img');
    kept.setAttribute('src', source.url);
    for (const name of ['alt', 'title', 'width', 'height']) {
      const value = img.getAttribute(name);
      if (value !== null) {
        kept.setAttribute(name, value);
      }
    }
    return kept;
  }
  const button = doc.createElement('button');
  button.setAttribute('type', 'button');
  button.className = REMOTE_IMAGE_CLASS;
  button.dataset.src = source.url;
  if (alt) {
    button.dataset.alt = alt;
  }
  button.title = alt ? `${alt}: ${source.url}` : source.url;
  button.textContent = `Load image from ${source.host}`;
  return button;
}

/** Replace a placeholder by its image, in this browser only (a person clicked it). */
export function loadRemoteImage(placeholder: HTMLElement): HTMLImageElement {
  const img = placeholder.ownerDocument.createElement('img');
  img.src = placeholder.dataset.src ?? '';
  img.alt = placeholder.dataset.alt ?? '';
  img.title = placeholder.dataset.src ?? '';
  placeholder.replaceWith(img);
  return img;
}

/** Load again, after a re-render, the images this person already chose to load. */
export function reloadChosenImages(host: Element, chosen: ReadonlySet<string>): void {
  for (const placeholder of Array.from(
    host.querySelectorAll<HTMLElement>(`button.${REMOTE_IMAGE_CLASS}`)
  )) {
    if (chosen.has(placeholder.dataset.src ?? '')) {
      loadRemoteImage(placeholder);
    }
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
