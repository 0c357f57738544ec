import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonForScript } from './html.ts';

describe('html escaping', () => {
  it('keeps JSON inside a <script> element from closing it', () => {
    const text = jsonForScript({ message: '</script><!-- & \u2028\u2029' });
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual({ message: '</script><!-- & \u2028\u2029' });
  });

  it('escapes HTML text and attribute breakers', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
  });
});
