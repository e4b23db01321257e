/**
 * CPU and memory of the processes a bench drives, read from /proc (Linux): utime+stime per
 * process, the PostgreSQL backends of one database, and RSS. What the machine spends per
 * request moves far less with other people's load than throughput does, so benches print it
 * next to every rate. Nothing here asserts anything; on a system without /proc every figure is
 * simply missing.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** pid of the process listening on 127.0.0.1:`port` (via /proc; null when unknown). */
export function pidOfPort(port: number): number | null {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[1].endsWith(hex) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(pid);
      }
    } catch {
      /* gone or not ours */
    }
  }
  return null;
}

/** utime + stime of a process in ms (null when it is gone). */
export function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** Resident set size of a process in MiB (null when it is gone). */
export function rssMiBOf(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** PostgreSQL backends serving database `db` (their title is `postgres: <user> <db> …`). */
export function pgBackends(db: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.split('\0')[0].split(' ').slice(1).includes(db)) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Processes whose CPU time is accounted: name → pid, and the database whose backends count. */
export interface CpuTargets {
  procs: Record<string, number>;
  database: string | null;
}

/** CPU ms per pid, per process name, at one instant. */
export type CpuSnapshot = Map<string, Map<number, number>>;

/** CPU time of every target now (this process as `bench client`). */
export function cpuSnapshot(t: CpuTargets): CpuSnapshot {
  const snap: CpuSnapshot = new Map();
  for (const [name, pid] of Object.entries(t.procs)) {
    const ms = cpuMsOf(pid);
    if (ms !== null) snap.set(name, new Map([[pid, ms]]));
  }
  if (t.database) {
    const m = new Map<number, number>();
    for (const pid of pgBackends(t.database)) {
      const ms = cpuMsOf(pid);
      if (ms !== null) m.set(pid, ms);
    }
    snap.set('postgres', m);
  }
  const self = process.cpuUsage();
  snap.set('bench client', new Map([[process.pid, (self.user + self.system) / 1000]]));
  return snap;
}

/** CPU ms spent by each process between two snapshots (backends born in between count whole). */
export function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, after] of b) {
    const before = a.get(name) ?? new Map<number, number>();
    let sum = 0;
    for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
    out[name] = sum;
  }
  return out;
}

/** `name a.b, name c.d; total x.y` of a per-process figure (`digits` after the point). */
export function formatPerProcess(o: Record<string, number>, digits = 1): string {
  const total = Object.values(o).reduce((a, b) => a + b, 0);
  return `${Object.entries(o)
    .map(([k, v]) => `${k} ${v.toFixed(digits)}`)
    .join(', ')}; total ${total.toFixed(digits)}`;
}
