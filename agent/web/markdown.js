// Riverse web chat: answers rendered as Markdown (marked), sanitised (DOMPurify) before they reach the page.
//
// Nothing a model writes runs or loads on the page: raw HTML in an answer is shown as text, images
// become links (no request leaves for them), links keep only http, https and mailto targets and open
// in a new tab without a referrer, and DOMPurify removes whatever else could still execute.
"use strict";

(function () {
  const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);
  const ALLOWED_TAGS = [
    "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "input",
  ];
  const ALLOWED_ATTR = ["href", "title", "class", "start", "align", "type", "checked", "disabled"];

  function escapeHtml(text) {
    return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function safeHref(href) {
    try {
      const url = new URL(href, window.location.href);
      return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  const parser = new window.marked.Marked({ gfm: true, breaks: true, async: false });
  parser.use({
    renderer: {
      html(token) { return token.block ? `<p>${escapeHtml(token.text)}</p>` : escapeHtml(token.text); },
      image(token) { return `<a href="${escapeHtml(token.href)}">${escapeHtml(token.text || token.href)}</a>`; },
    },
  });

  const purifier = window.DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.hasAttribute("href") ? safeHref(node.getAttribute("href")) : null;
      if (href) {
        node.setAttribute("href", href);
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer nofollow");
      } else {
        node.removeAttribute("href");
      }
    }
    if (node.tagName === "INPUT") { // only a task list's box, never to be ticked
      node.setAttribute("type", "checkbox");
      node.setAttribute("disabled", "");
    }
    const cls = node.getAttribute && node.getAttribute("class");
    if (cls && !(node.tagName === "CODE" && /^language-[\w+#.-]{1,30}$/.test(cls))) node.removeAttribute("class");
  });

  // The answer `text` as sanitised nodes; each code block gets a copy button made by `copyButton(code)`.
  function render(text, copyButton) {
    const html = parser.parse(String(text ?? ""));
    const fragment = purifier.sanitize(html, {
      ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false, RETURN_DOM_FRAGMENT: true,
    });
    for (const pre of fragment.querySelectorAll("pre")) {
      const box = document.createElement("div");
      box.className = "code";
      pre.replaceWith(box);
      box.append(copyButton(pre.textContent.replace(/\n$/, "")), pre);
    }
    return fragment;
  }

  window.RiverseMarkdown = { render, safeHref };
})();
