/**
 * A lock file serializing e2e runs on one checkout. Use it from the e2e global setup only: every
 * run that starts its own stack shares `.data/e2e-stack.json`, `.data/e2e-logs`, `.data/e2e-files`,
 * `.data/e2e-nats`, the e2e ports and the e2e database, so two concurrent runs would clobber each
 * other. The second run waits (up to `E2E_LOCK_WAIT_MINUTES`, 15) and then fails with a message
 * naming the holder.
 *
 * - Taking the lock is atomic: the holder's record is written to a private temp file, then
 *   hard-linked to the lock path (`link` fails when the lock exists), so a reader never sees a
 *   half-written lock.
 * - A lock whose holder is gone (killed without teardown, pid reused by another program) is
 *   stale and taken over; a random nonce makes sure only that stale lock is removed, never a
 *   live one another waiter has just taken.
 * - The lock is released by the global teardown, and on a normal process exit as a fallback.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT, sleep } from '../../scripts/up.js';

/** Where the e2e lock lives (`E2E_LOCK_FILE` overrides it). */
export const E2E_LOCK_FILE = process.env.E2E_LOCK_FILE ?? join(REPO_ROOT, '.data', 'e2e.lock');

/** Contents of the lock file. */
export interface LockRecord {
  pid: number;
  /** The holder's start time (/proc/<pid>/stat field 22), to tell a live holder from a reused pid. */
  start: string;
  /** The holder's command line, for messages. */
  cmdline: string;
  nonce: string;
  /** ISO time the lock was taken. */
  since: string;
}

/** Options of acquireE2eLock. */
export interface AcquireOptions {
  file?: string;
  /** Give up after this long (default `E2E_LOCK_WAIT_MINUTES` minutes, else 15). */
  waitMs?: number;
  /** Poll interval (default 1 s). */
  intervalMs?: number;
  /** Progress lines while waiting. */
  say?: (line: string) => void;
  /** Extra condition to wait for once the lock is held (e.g. an older run without the lock still owning the stack); returns a description of what is awaited, or null. */
  blockedBy?: () => string | null;
}

/** A held lock. */
export interface HeldLock {
  file: string;
  record: LockRecord;
  /** Remove the lock if it is still ours; idempotent. */
  release(): void;
}

/** The command line of a process ('' when unknown). */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Start time of a process in clock ticks since boot ('' when unknown, e.g. not Linux). */
function startOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** True when the pid exists (EPERM: it does, under another user) and is not a zombie. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function readRecord(file: string): LockRecord | null {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
    return typeof r?.pid === 'number' && typeof r.nonce === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** True while the process that wrote `r` still runs (same pid, same start time). */
function holderAlive(r: LockRecord): boolean {
  if (r.pid === process.pid) return false; // a previous setup of this very process that never released
  return pidAlive(r.pid) && startOf(r.pid) === (r.start ?? '');
}

function describeHolder(r: LockRecord): string {
  return `pid ${r.pid} since ${r.since}${r.cmdline ? ` (${r.cmdline.slice(0, 160)})` : ''}`;
}

/**
 * One attempt: true when the lock is now ours; 'retry' after removing a stale lock; the current
 * holder otherwise (null when its record cannot be read).
 */
function tryTake(file: string, record: LockRecord, say: (l: string) => void): true | 'retry' | LockRecord | null {
  const tmp = `${file}.${process.pid}.${record.nonce}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  const holder = readRecord(file);
  if (holder === null) {
    // Unreadable lock (not written by this module, or vanished in between): retry later, and
    // say so rather than waiting silently.
    return null;
  }
  if (holderAlive(holder)) return holder;
  // Stale: move it aside, and delete it only if it is the very lock found stale.
  const aside = `${file}.${process.pid}.${record.nonce}.stale`;
  try {
    renameSync(file, aside);
  } catch {
    return holder; // someone else moved it first; look again next round
  }
  const moved = readRecord(aside);
  if (moved?.nonce === holder.nonce) {
    say(`removed a stale e2e lock of ${describeHolder(holder)}`);
    rmSync(aside, { force: true });
    return 'retry';
  }
  // We moved a lock another waiter took meanwhile: put it back unless a third one is there.
  try {
    linkSync(aside, file);
  } catch {
    /* the place is taken: that run holds the lock */
  }
  rmSync(aside, { force: true });
  return moved ?? holder;
}

/**
 * Take the e2e lock, waiting while another run holds it. Throws, naming the holder, when
 * `waitMs` passes first.
 */
export async function acquireE2eLock(opts: AcquireOptions = {}): Promise<HeldLock> {
  const file = opts.file ?? E2E_LOCK_FILE;
  const minutes = Number(process.env.E2E_LOCK_WAIT_MINUTES ?? 15);
  const waitMs = opts.waitMs ?? (Number.isFinite(minutes) && minutes >= 0 ? minutes * 60_000 : 15 * 60_000);
  const intervalMs = opts.intervalMs ?? 1000;
  const say = opts.say ?? (() => undefined);
  mkdirSync(dirname(file), { recursive: true });
  const record: LockRecord = {
    pid: process.pid,
    start: startOf(process.pid),
    cmdline: cmdlineOf(process.pid),
    nonce: randomBytes(12).toString('hex'),
    since: new Date().toISOString(),
  };
  const started = Date.now();
  const deadline = started + waitMs;
  let lastSaid = '';
  let lastSaidAt = 0;
  const progress = (what: string) => {
    // Say it when it changes, and every 30 s while it lasts.
    if (what !== lastSaid || Date.now() - lastSaidAt >= 30_000) {
      say(`waiting for ${what} (${Math.round((Date.now() - started) / 1000)} s of at most ${Math.round(waitMs / 1000)} s)`);
      lastSaid = what;
      lastSaidAt = Date.now();
    }
  };
  const timeout = (what: string) =>
    new Error(
      `another e2e run is in the way: ${what} still after ${waitMs >= 60_000 ? `${Math.round(waitMs / 60_000)} min` : `${Math.round(waitMs / 1000)} s`}. Wait for it to finish and run again ` +
        `(E2E_LOCK_WAIT_MINUTES waits longer); if no such run exists, delete ${file}.`,
    );

  let held = false;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    if (readRecord(file)?.nonce === record.nonce) rmSync(file, { force: true });
  };

  for (;;) {
    const r = tryTake(file, record, say);
    if (r === true) break;
    if (r === 'retry') continue;
    const what = r === null ? `an unreadable e2e lock ${file}` : `the e2e lock ${file} held by ${describeHolder(r)}`;
    if (Date.now() >= deadline) throw timeout(what);
    progress(what);
    await sleep(intervalMs);
  }
  held = true;
  process.once('exit', release);
  try {
    for (;;) {
      const what = opts.blockedBy?.() ?? null;
      if (what === null) break;
      if (Date.now() >= deadline) throw timeout(what);
      progress(what);
      await sleep(intervalMs);
    }
  } catch (err) {
    release();
    throw err;
  }
  if (lastSaid) say(`e2e lock taken after ${Math.round((Date.now() - started) / 1000)} s`);
  return { file, record, release };
}
