// A tiny, safe Markdown renderer for the rules panel: paragraphs, "* " bullets, **bold**, *emphasis* and
// `code`. It builds DOM nodes with textContent only (never innerHTML), so no text can become markup.
"use strict";

// The inline marks of `text` as nodes appended to `parent`.
function markdownInline(text, parent) {
  const pattern = /(\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|`([^`]+)`)/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) { parent.appendChild(document.createTextNode(text.slice(at, match.index))); }
    const [tag, inner] = match[2] !== undefined ? ["strong", match[2]]
      : match[3] !== undefined ? ["em", match[3]] : ["code", match[4]];
    const element = document.createElement(tag);
    element.textContent = inner;
    parent.appendChild(element);
    at = match.index + match[0].length;
  }
  if (at < text.length) { parent.appendChild(document.createTextNode(text.slice(at))); }
  return parent;
}

// Paragraphs (one string each; a bullet starts with "* ") as a fragment of <p> and <ul> nodes.
function markdown(paragraphs) {
  const out = document.createDocumentFragment();
  let list = null;
  for (const text of paragraphs) {
    if (text.startsWith("* ")) {
      if (!list) { list = document.createElement("ul"); out.appendChild(list); }
      list.appendChild(markdownInline(text.slice(2), document.createElement("li")));
    } else {
      list = null;
      out.appendChild(markdownInline(text, document.createElement("p")));
    }
  }
  return out;
}
