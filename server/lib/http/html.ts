/**
 * The one place the server escapes what it writes into HTML it builds itself (the app's page
 * template, the public pages' data, Google sign-in's result page).
 */

/** Text for an element's content or a quoted attribute value: every character that could end
 * either, or start markup, as a numeric reference. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot end the <script> element it sits in or open a comment or CDATA there; the
 * escapes are JSON's own, so JSON.parse of the element's text gives the value back. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
