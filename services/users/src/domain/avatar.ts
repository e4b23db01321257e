/**
 * The generated avatar of a user (InvenioRDM `avatar.svg`): the name's initial on a coloured
 * disc. The colour is picked from InvenioRDM's palette by user id, the ETag starts with the
 * initial (`"J…"` for "Jose…"), as InvenioRDM's tests assert.
 */
import { createHash } from 'node:crypto';

/** InvenioRDM's `USERS_RESOURCES_AVATAR_COLORS`. */
const COLORS = [
  '#e06055',
  '#ff8a65',
  '#e91e63',
  '#f06292',
  '#673ab7',
  '#ba68c8',
  '#7986cb',
  '#3f51b5',
  '#5e97f6',
  '#00a4e4',
  '#4dd0e1',
  '#0097a7',
  '#d4e157',
  '#aed581',
  '#57bb8a',
  '#4db6ac',
  '#607d8b',
  '#795548',
  '#a1887f',
  '#fdd835',
  '#a3a3a3',
  '#556c60',
  '#605264',
  '#923035',
  '#915a30',
  '#55526f',
  '#67635a',
];

/** Fold a string to ASCII-ish letters: NFKD, strip combining marks (Č → C). */
function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** The initial shown: first letter or digit of full name, else username, else e-mail; `?` when none. */
export function avatarInitial(fullName: string | null | undefined, username: string | null | undefined, email: string): string {
  for (const candidate of [fullName, username, email]) {
    if (!candidate) continue;
    const m = /[\p{L}\p{N}]/u.exec(fold(candidate));
    if (m) return m[0].toUpperCase();
  }
  return '?';
}

/** The palette colour of user `id`. */
export function avatarColor(id: string): string {
  const n = Number.parseInt(id, 10);
  return COLORS[(Number.isFinite(n) ? n : 0) % COLORS.length];
}

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);

/** The SVG document, its ETag and the initial. */
export function renderAvatar(id: string, initial: string): { svg: string; etag: string } {
  const color = avatarColor(id);
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">' +
    `<circle cx="50" cy="50" r="50" fill="${color}"/>` +
    '<text x="50" y="50" dy=".35em" text-anchor="middle" fill="#ffffff" ' +
    'font-family="Helvetica, Arial, sans-serif" font-size="50">' +
    `${escapeXml(initial)}</text></svg>`;
  const digest = createHash('sha256').update(svg).digest('hex').slice(0, 16);
  return { svg, etag: `"${initial}${color.slice(1)}-${digest}"` };
}
