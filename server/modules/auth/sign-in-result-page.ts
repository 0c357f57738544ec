import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { SIGN_IN_RESULT_CHANNEL, SIGN_IN_RESULT_TYPE, type TPopupSignInResult } from '../../../contracts/popup-sign-in.ts';
import { escapeHtml, jsonForScript } from '../../lib/http/html.ts';

/** What the result page tells the person and the tab that started the attempt. */
export type PageOutcome = { status: number; ok: boolean; text: string; attempt?: string | undefined };

/**
 * Reports to the opener with an exact target origin and on a BroadcastChannel too: Google's
 * Cross-Origin-Opener-Policy severs `window.opener` on the way (the tab then hears only the
 * channel). Then it closes; if the window cannot close (it is a full tab, not our popup) it goes
 * on to the app instead. A failure addressed to no attempt has no tab to show it, so the page
 * stays and shows it itself. Constant text, so one CSP hash allows it; the data it needs is a
 * JSON block, which is never executed.
 */
const RESULT_SCRIPT = `(function () {
  var data = JSON.parse(document.getElementById('result').textContent);
  try { if (window.opener) window.opener.postMessage(data.result, data.origin); } catch (e) {}
  try { var channel = new BroadcastChannel(${JSON.stringify(SIGN_IN_RESULT_CHANNEL)}); channel.postMessage(data.result); channel.close(); } catch (e) {}
  if (!data.result.ok && !data.result.attempt) return;
  window.close();
  if (!window.closed) window.location.replace(data.result.ok ? '/dashboard' : '/');
})();`;

const RESULT_SCRIPT_HASH = createHash('sha256').update(RESULT_SCRIPT).digest('base64');

/** Nothing but this one script may run, nothing may load, the page may not be framed. */
export const RESULT_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${RESULT_SCRIPT_HASH}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sends the page that reports a sign-in outcome to the tab at `origin` and closes itself. */
export function resultPageRenderer(origin: string) {
  return (reply: FastifyReply, outcome: PageOutcome): FastifyReply => {
    const result: TPopupSignInResult = {
      type: SIGN_IN_RESULT_TYPE,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { message: outcome.text }),
      ...(outcome.attempt ? { attempt: outcome.attempt } : {}),
    };
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${outcome.ok ? 'Signed in' : 'Sign-in failed'}</title>
<script type="application/json" id="result">${jsonForScript({ result, origin })}</script>
<script>${RESULT_SCRIPT}</script>
</head>
<body>
<p>${escapeHtml(outcome.text)}</p>
<p>You can close this window${outcome.ok ? '' : ', or go <a href="/">back to the site</a>'}.</p>
</body>
</html>
`;
    return reply
      .status(outcome.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', RESULT_PAGE_CSP)
      // The callback URL carries the one-time code; do not hand it on as a referrer.
      .header('referrer-policy', 'no-referrer')
      // Our pages' same-origin-allow-popups would cut the popup from its opener here, after
      // the provider's page (a change of policy between documents swaps the browsing context
      // group). This page holds only the result, which it posts to our exact origin.
      .header('cross-origin-opener-policy', 'unsafe-none')
      .send(html);
  };
}
