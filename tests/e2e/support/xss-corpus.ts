/**
 * Cross-site scripting payloads for the rendering-safety journey (tests/e2e/xss.spec.ts).
 *
 * Every payload, if the browser ever ran it, calls `__xss('<id>')`, a function the journey
 * exposes in every page and frame, so a hit names the payload and the field it came from.
 * Ids are `<field tag>:<payload name>`: the same payload placed in two fields is told apart.
 *
 * `shows` is the text a safe screen displays for the payload: the payload itself where the
 * field is plain text. Markdown fields display some payloads differently (a link whose URL was
 * dropped keeps only its text; an entity is decoded), hence `markdownShows`.
 */

export type XssPayload = {
  id: string;
  text: string;
  /** What a safe Markdown renderer shows of it (default: the text itself). */
  markdownShows?: string;
};

/** The global the payloads call: exposed by the journey in every frame. */
export const XSS_MARKER = '__xss';

const call = (id: string) => `${XSS_MARKER}('${id}')`;

/**
 * Short payloads, for fields with small length limits (titles, names, categories): each one a
 * different way in. With a tag of up to 6 characters every text is at most 60 characters.
 */
export function shortPayloads(tag: string): Record<'img' | 'script' | 'svg' | 'js' | 'tpl' | 'mdlink' | 'entity' | 'close', XssPayload> {
  const id = (name: string) => `${tag}:${name}`;
  return {
    img: { id: id('img'), text: `<img src=x onerror=${call(id('img'))}>` },
    script: { id: id('script'), text: `<script>${call(id('script'))}</script>` },
    // Breaks out of a quoted attribute first.
    svg: { id: id('svg'), text: `"><svg onload=${call(id('svg'))}>` },
    js: { id: id('js'), text: `javascript:${call(id('js'))}` },
    // Template injection (an AngularJS-style sandbox escape): must stay text.
    tpl: { id: id('tpl'), text: `{{constructor.constructor("${call(id('tpl'))}")()}}` },
    mdlink: { id: id('mdlink'), text: `[link](javascript:${call(id('mdlink'))})`, markdownShows: 'link' },
    entity: { id: id('entity'), text: `<a href="&#106;avascript:${call(id('entity'))}">e</a>` },
    // Closes the server-rendered <title> and any script element before injecting.
    close: { id: id('close'), text: `</title></script><img src=x onerror=${call(id('close'))}>` },
  };
}

/** Joins payload texts with spaces, failing loudly when they would not fit the field. */
export function joinWithin(max: number, payloads: readonly XssPayload[]): string {
  const text = payloads.map((p) => p.text).join(' ');
  if (text.length > max) throw new Error(`XSS corpus: ${text.length} characters do not fit a field of ${max}: ${text}`);
  return text;
}

/**
 * The whole corpus, for fields that take long text: HTML injection, dangerous URL schemes
 * (raw and obfuscated), SVG and MathML, mutation-XSS forms that rely on a sanitizer's parse
 * differing from the browser's, template injection, breaking out of the server-rendered
 * <title> and JSON config, and Markdown links, images, autolinks, reference links, HTML blocks
 * and fenced code. One payload per paragraph (blank line between them), so Markdown parses
 * each on its own.
 */
export function fullCorpus(tag: string): XssPayload[] {
  /** A payload named `name`; `build` and `shows` get the marker call to embed. */
  const p = (name: string, build: (c: string) => string, shows?: string | ((c: string) => string)): XssPayload => {
    const id = `${tag}:${name}`;
    const c = call(id);
    const text = build(c);
    return shows === undefined ? { id, text } : { id, text, markdownShows: typeof shows === 'string' ? shows : shows(c) };
  };
  // data:text/html documents whose script calls the marker, as text and as base64.
  const htmlDoc = (c: string) => `<script>${c}</script>`;
  // btoa over the UTF-8 bytes (not Buffer): the client's tests run the corpus too.
  const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

  return [
    // --- HTML elements and event handlers ------------------------------------------------
    p('script', (c) => `<script>${c}</script>`),
    p('script-src', (c) => `<script src="data:text/javascript,${c}"></script>`),
    p('img', (c) => `<img src=x onerror=${c}>`),
    p('img-quoted', (c) => `<img src="x" onerror="${c}">`),
    p('img-slash', (c) => `<img/src=x/onerror=${c}>`),
    p('svg-onload', (c) => `<svg onload=${c}>`),
    p('svg-script', (c) => `<svg><script>${c}</script></svg>`),
    p('svg-animate', (c) => `<svg><animate onbegin=${c} attributeName=x dur=1s>`),
    p('svg-xlink', (c) => `<svg><a xlink:href="javascript:${c}"><text x="20" y="20">svg link</text></a></svg>`),
    p('body', (c) => `<body onload=${c}>`),
    p('details', (c) => `<details open ontoggle=${c}>`),
    p('input', (c) => `<input autofocus onfocus=${c}>`),
    p('video', (c) => `<video><source onerror=${c}></video>`),
    p('audio', (c) => `<audio src=x onerror=${c}>`),
    p('marquee', (c) => `<marquee onstart=${c}>m</marquee>`),
    p('div-style', (c) => `<div style="background:url(javascript:${c})">d</div>`),
    p('attr-break', (c) => `"><img src=x onerror=${c}>`),
    p('attr-break-single', (c) => `'><svg onload=${c}>`),
    p('iframe-srcdoc', (c) => `<iframe srcdoc="<script>${c}</script>"></iframe>`),
    p('iframe-js', (c) => `<iframe src="javascript:${c}"></iframe>`),
    p('object', (c) => `<object data="javascript:${c}"></object>`),
    p('embed', (c) => `<embed src="javascript:${c}">`),
    p('form', (c) => `<form action="javascript:${c}"><button>form</button></form>`),
    p('formaction', (c) => `<button formaction="javascript:${c}">formaction</button>`),
    p('meta-refresh', (c) => `<meta http-equiv="refresh" content="0;url=javascript:${c}">`),
    p('base', (c) => `<base href="javascript:${c}//">`),
    p('link-import', (c) => `<link rel=import href="data:text/html,${htmlDoc(c)}">`),
    p('style-import', (c) => `<style>@import 'javascript:${c}';</style>`),
    // --- Dangerous URL schemes in HTML -----------------------------------------------------
    p('a-js', (c) => `<a href="javascript:${c}">a-js</a>`),
    p('a-js-case', (c) => `<a href="JaVaScRiPt:${c}">a-js-case</a>`),
    p('a-js-entity', (c) => `<a href="&#106;&#97;vascript&colon;${c}">a-js-entity</a>`),
    p('a-js-space', (c) => `<a href=" java\tscript:${c}">a-js-space</a>`),
    p('a-data', (c) => `<a href="data:text/html,${htmlDoc(c)}">a-data</a>`),
    p('a-vbscript', (c) => `<a href="vbscript:${c}">a-vbscript</a>`),
    // --- Mutation XSS: markup a sanitizer parses one way and the browser another --------------
    p('mxss-noscript', (c) => `<noscript><p title="</noscript><img src=x onerror=${c}>">`),
    p('mxss-svg-style', (c) => `<svg></p><style><a id="</style><img src=1 onerror=${c}>">`),
    p('mxss-math', (c) => `<math><mtext><table><mglyph><style><img src=x onerror=${c}>`),
    p('mxss-form', (c) => `<form><math><mtext></form><form><mglyph><style></math><img src onerror=${c}>`),
    p('mxss-template', (c) => `<template><img src=x onerror=${c}></template>`),
    // --- Template and context injection ----------------------------------------------------
    p('tpl-angular', (c) => `{{constructor.constructor("${c}")()}}`),
    p('tpl-literal', (c) => `\${${c}}`),
    p('title-break', (c) => `</title><script>${c}</script>`),
    p('json-break', (c) => `</script><script>${c}</script>`),
    // --- Markdown: links, images, autolinks, references, HTML blocks, code -------------------
    p('md-js', (c) => `[md-js](javascript:${c})`, 'md-js'),
    p('md-js-case', (c) => `[md-js-case](JaVaScRiPt:${c})`, 'md-js-case'),
    p('md-js-entity', (c) => `[md-js-entity](javascript&#58;${c})`, 'md-js-entity'),
    p('md-js-hex', (c) => `[md-js-hex](&#x6A;avascript:${c})`, 'md-js-hex'),
    p('md-js-tab', (c) => `[md-js-tab](java&#9;script:${c})`, 'md-js-tab'),
    p('md-js-angle', (c) => `[md-js-angle](< javascript:${c}>)`, 'md-js-angle'),
    p('md-data', (c) => `[md-data](data:text/html;base64,${base64(htmlDoc(c))})`, 'md-data'),
    p('md-vbscript', (c) => `[md-vbscript](vbscript:${c})`, 'md-vbscript'),
    p('md-img-js', (c) => `![md-img-js](javascript:${c})`, 'md-img-js'),
    p('md-img-data', (c) => `![md-img-data](data:text/html,${htmlDoc(c)})`, 'md-img-data'),
    p('md-img-svg', (c) => `![md-img-svg](data:image/svg+xml;base64,${base64(`<svg xmlns="http://www.w3.org/2000/svg" onload="${c}"/>`)})`, 'md-img-svg'),
    p('md-img-in-link', (c) => `[md-img-in-link ![i](/favicon.svg)](javascript:${c})`, 'md-img-in-link'),
    p('md-ref', (c) => `[md-ref][ref-${tag}]\n\n[ref-${tag}]: javascript:${c}`, 'md-ref'),
    p('md-autolink', (c) => `<javascript:${c}>`, (c) => `javascript:${c}`),
    p('md-title', (c) => `[md-title](https://example.com "\\" onmouseover=\\"${c}")`, 'md-title'),
    p('md-html-block', (c) => `<div>\n<img src=x onerror=${c}>\n</div>`),
    p('md-details', (c) => `<details><summary>md-details</summary><img src=x onerror=${c}></details>`),
    p('md-table', (c) => `| md-table |\n| --- |\n| <img src=x onerror=${c}> |`, (c) => `<img src=x onerror=${c}>`),
    p('md-inline-code', (c) => `\`<img src=x onerror=${c}>\``, (c) => `<img src=x onerror=${c}>`),
    // Fenced code: the chat highlights known languages (HTML from highlight.js), so both a
    // known language and an info string that tries to break out of the class attribute.
    p('md-code-html', (c) => `\`\`\`html\n<script>${c}</script><img src=x onerror=${c}>\n\`\`\``, (c) => `<script>${c}</script><img src=x onerror=${c}>`),
    p('md-code-js', (c) => `\`\`\`javascript\ndocument.write('<img src=x onerror=${c}>')\n\`\`\``, (c) => `document.write('<img src=x onerror=${c}>')`),
    p('md-code-info', (c) => `\`\`\`x"onload="${c}\nplain <b>code</b>\n\`\`\``, 'plain <b>code</b>'),
  ];
}

/** The corpus as one Markdown document: a heading, then each payload in its own paragraph. */
export function corpusMarkdown(heading: string, payloads: readonly XssPayload[]): string {
  return [`# ${heading}`, ...payloads.map((p) => p.text)].join('\n\n');
}

/** What a safe Markdown renderer shows of a payload. */
export const markdownShows = (payload: XssPayload): string => payload.markdownShows ?? payload.text;
