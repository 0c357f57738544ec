import { describe, expect, it } from 'vitest';
import { createSseParser } from './sse-parser.ts';

/** Feeds the pieces one after another and collects every event's data. */
function parse(...pieces: string[]): string[] {
  const parser = createSseParser();
  return pieces.flatMap((piece) => parser.feed(piece));
}

describe('createSseParser', () => {
  it('gives the data of each event a blank line ends, skipping the other fields and comments', () => {
    expect(parse('event: response.created\ndata: {"a":1}\n\n: keep-alive\n\nid: 7\nretry: 100\ndata: two\n\n')).toEqual(['{"a":1}', 'two']);
  });

  it('reads LF, CRLF and CR line ends alike, also when CRLF is split between pieces', () => {
    expect(parse('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual(['a', 'b', 'c']);
    expect(parse('data: a\r', '\n\r', '\ndata: b\r', '\r')).toEqual(['a', 'b']);
  });

  it('joins an event cut anywhere across pieces', () => {
    const text = 'data: {"delta":"héllo wörld"}\n\ndata: next\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(parse(text.slice(0, cut), text.slice(cut))).toEqual(['{"delta":"héllo wörld"}', 'next']);
    }
  });

  it('joins several data lines with LF and drops one space after the colon only', () => {
    expect(parse('data:one\ndata:  two\ndata\n\n')).toEqual(['one\n two\n']);
  });

  it('skips events without data and drops an event the stream ends inside', () => {
    expect(parse('event: ping\n\n\n\ndata: kept\n\ndata: cut off')).toEqual(['kept']);
  });
});
