/**
 * The data of server-sent events, read from text as it arrives (the WHATWG event-stream format):
 * lines end in LF, CRLF or CR, a blank line ends an event, `data:` lines (one space after the
 * colon dropped) join with LF, comment lines (`:`) and the other fields (`event`, `id`, `retry`)
 * are skipped, and an event the stream ends inside is dropped. Only the data is kept: the
 * providers read here name each event inside its JSON.
 */
export function createSseParser() {
  let pending = '';
  let data = '';
  let hasData = false;
  /** The last chunk ended in CR: an LF starting the next one belongs to that line end. */
  let afterCr = false;

  /** Takes the next piece of the stream; returns the data of each event it completed, in order. */
  function feed(text: string): string[] {
    const events: string[] = [];
    let start = 0;
    if (afterCr && text.charCodeAt(0) === 10) start = 1;
    afterCr = false;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      const line = pending + text.slice(start, i);
      pending = '';
      if (code === 13) {
        if (i + 1 === text.length) afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      if (line === '') {
        if (hasData) events.push(data);
        data = '';
        hasData = false;
      } else if (line.startsWith('data:')) {
        const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        data = hasData ? `${data}\n${value}` : value;
        hasData = true;
      } else if (line === 'data') {
        data = hasData ? `${data}\n` : '';
        hasData = true;
      }
    }
    pending += text.slice(start);
    return events;
  }

  return { feed };
}
