/**
 * The e2e stack's mail sink as specs read it: the records service's development sink writes each
 * message as an `.eml` file into `E2E_MAIL_SINK_DIR` (`.data/e2e-mail` by default, emptied per
 * run by global-setup.ts); these helpers decode their quoted-printable text and wait for one.
 *
 * When to use: a spec that checks an e-mail the stack sends (requests, access requests).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The sink folder of this run. */
export const MAIL_DIR = process.env.E2E_MAIL_SINK_DIR || fileURLToPath(new URL('../../.data/e2e-mail', import.meta.url));

/** Decoded text of every message in the sink (none while the folder does not exist). */
export function sinkMails(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(MAIL_DIR).filter((n) => n.endsWith('.eml'));
  } catch {
    return [];
  }
  return names
    .map((n) => readFileSync(join(MAIL_DIR, n), 'utf8'))
    .map((raw) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))));
}

/** Wait (up to 30 s) for a sink mail that `match`es; `what` names it in the timeout error. */
export async function waitForMail(match: (text: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = sinkMails().find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail ${what} in ${MAIL_DIR}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Wait (up to 30 s) for a sink mail containing every part. */
export function mailWith(...parts: string[]): Promise<string> {
  return waitForMail((text) => parts.every((p) => text.includes(p)), `containing ${JSON.stringify(parts)}`);
}
