import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function markdownFiles(): string[] {
  const files = ['README.md', 'SECURITY.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  return files;
}

/** The text outside fenced code blocks and inline code, where a `[a](b)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

type Link = { file: string; target: string };

function relativeLinks(): Link[] {
  const links: Link[] = [];
  for (const file of markdownFiles()) {
    for (const m of prose(readFileSync(path.join(root, file), 'utf8')).matchAll(/\]\(([^()\s]+)(?: "[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      links.push({ file, target });
    }
  }
  return links;
}

describe('links in README.md, SECURITY.md and docs/', () => {
  const links = relativeLinks();

  it('finds the links it checks (the README links into docs/)', () => {
    expect(links.filter((l) => l.file === 'README.md').length).toBeGreaterThan(10);
  });

  it('every relative link resolves to a file or folder, and every #anchor to a heading of its page', () => {
    const broken: string[] = [];
    for (const { file, target } of links) {
      const [pathPart = '', anchor] = target.split('#');
      const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
      if (!existsSync(path.join(root, resolved))) {
        broken.push(`${file}: ${target} (no ${resolved})`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(path.join(root, resolved)).isDirectory() || !resolved.endsWith('.md')) {
        broken.push(`${file}: ${target} (an anchor into something that is not a Markdown page)`);
      } else if (!anchorsIn(readFileSync(path.join(root, resolved), 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("makes GitHub's anchors", () => {
    expect(anchorOf('How `/` is built and served')).toBe('how--is-built-and-served');
    expect(anchorOf('Webhook schema (version 1)')).toBe('webhook-schema-version-1');
    expect(anchorOf('Delivery channels (webhook, Slack, Discord, Telegram, Microsoft Teams)')).toBe('delivery-channels-webhook-slack-discord-telegram-microsoft-teams');
  });
});
