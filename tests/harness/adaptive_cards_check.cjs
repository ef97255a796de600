// Microsoft's own Adaptive Cards renderer (npm `adaptivecards`, in tests/partners) on the cards
// and message texts the room posts to Teams: reads {"cards": [...], "markdown": [...]} as JSON
// on stdin, writes for each card and each text what was rendered on stdout (`errors`: the
// renderer's parse and validation events; `html`; `tags`: the elements' names; `links`: each
// `<a>`'s href; `text`: what a person reads), as {"cards": [...], "markdown": [...]}. A card is
// parsed and validated with the renderer's default HostConfig (its 5 actions at most), then
// rendered in jsdom with markdown-it as the renderer's Markdown (`onProcessMarkdown`), HTML on,
// as a host that reads HTML would; a message's text is rendered by that same Markdown.
"use strict";
const path = require("path");
const { createRequire } = require("module");

const partners = createRequire(path.join(__dirname, "..", "partners", "package.json"));
const { JSDOM } = partners("jsdom");
const dom = new JSDOM("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { window: dom.window, document: dom.window.document });
for (const name of Object.getOwnPropertyNames(dom.window)) {
  if (/^(HTML\w*Element|Node|Element|Event|KeyboardEvent)$/.test(name)) {
    globalThis[name] = dom.window[name]; // the renderer checks `instanceof HTMLButtonElement`
  }
}
const AC = partners("adaptivecards/dist/adaptivecards.js");
const markdown = partners("markdown-it")({ html: true });

AC.AdaptiveCard.onProcessMarkdown = (text, result) => {
  result.outputHtml = markdown.render(text);
  result.didProcess = true;
};

function check(json) {
  const card = new AC.AdaptiveCard();
  const context = new AC.SerializationContext();
  card.parse(json, context);
  const errors = [];
  for (let i = 0; i < context.eventCount; i++) {
    errors.push(context.getEventAt(i).message);
  }
  for (const event of card.validateProperties().validationEvents) {
    errors.push(event.message);
  }
  return { errors, ...shown(card.render() || document.createElement("div")) };
}

function shown(element) {
  const tags = new Set([element, ...element.querySelectorAll("*")].map((e) => e.localName));
  const links = [...element.querySelectorAll("a")].map((a) => a.getAttribute("href"));
  return { html: element.outerHTML, tags: [...tags].sort(), links, text: element.textContent };
}

function rendered(text) {
  const element = document.createElement("div");
  element.innerHTML = markdown.render(text);
  return shown(element);
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const asked = JSON.parse(input);
  const answer = {
    cards: (asked.cards || []).map(check),
    markdown: (asked.markdown || []).map(rendered),
  };
  process.stdout.write(JSON.stringify(answer));
});
