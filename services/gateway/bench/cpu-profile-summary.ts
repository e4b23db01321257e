/**
 * Summarise a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. the gateway bench's
 * `BENCH_CPU_PROF=<dir>`): self time by function, as a Markdown table of the top N frames (the
 * flat view of a flame graph), and the share of a few groups (node http, koa, gateway, GC, idle).
 *
 *   pnpm exec tsx services/gateway/bench/cpu-profile-summary.ts <file.cpuprofile> [top=25]
 *
 * Idle time (`(idle)`) is left out of the percentages: they are shares of the time the process
 * was busy.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpu-profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/**
 * An esbuild bundle (`dist/<svc>/…js`) names the source of each module in a `// <path>` comment
 * line before it: the module of a bundled line is the last such comment above it.
 */
const bundles = new Map<string, { line: number; module: string }[]>();
function moduleOf(url: string, line: number): string | undefined {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return undefined;
  let marks = bundles.get(url);
  if (!marks) {
    marks = [];
    let lines: string[] = [];
    try {
      lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
    } catch {
      // Rebuilt since the profile was taken: only the bundle's name is left.
    }
    lines.forEach((l, i) => {
      const m = /^\/\/ ((?:\.\.\/)*(?:node_modules|services)\/\S+)$/.exec(l);
      if (m) marks?.push({ line: i, module: m[1] as string });
    });
    bundles.set(url, marks);
  }
  let found: string | undefined;
  for (const m of marks) {
    if (m.line > line) break;
    found = m.module;
  }
  return found?.replace(/^(\.\.\/)*/, '').replace(/^node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '');
}

/** `name (file:line)`, the file shortened to what follows node_modules/ (bundles: the source module). */
function label(f: Frame): string {
  const name = f.functionName || '(anonymous)';
  if (!f.url) return name;
  const short = moduleOf(f.url, f.lineNumber) ?? f.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '');
  return `${name} (${short}:${f.lineNumber + 1})`;
}

function group(f: Frame): string {
  const u = moduleOf(f.url, f.lineNumber) ?? f.url;
  if (f.functionName === '(garbage collector)') return 'GC';
  if (f.functionName === '(program)') return 'program (native, uncategorised)';
  if (u.startsWith('node:'))
    return /http|_http|net|stream|timers|events/.test(u) ? 'node (http, net, streams, events, timers)' : 'node (other)';
  if (/koa|koa-compose|on-finished|statuses|cookies|delegates|accepts|content-type|type-is|mime/.test(u)) return 'koa and its helpers';
  if (/pino|sonic-boom/.test(u)) return 'logging (pino)';
  if (/prom-client/.test(u)) return 'metrics (prom-client)';
  if (/nats/.test(u)) return 'nats client';
  if (/opentelemetry/.test(u)) return 'opentelemetry api';
  if (/services\/gateway\//.test(u)) return 'gateway';
  if (/services\/_platform\//.test(u)) return 'platform (@rdm/platform)';
  if (!u) return f.functionName.startsWith('(') ? f.functionName : 'native';
  return 'other';
}

const self = new Map<string, number>();
const groups = new Map<string, number>();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i] as number);
  const dt = profile.timeDeltas[i] ?? 0;
  if (!node || node.callFrame.functionName === '(idle)') continue;
  busy += dt;
  const l = label(node.callFrame);
  self.set(l, (self.get(l) ?? 0) + dt);
  const g = group(node.callFrame);
  groups.set(g, (groups.get(g) ?? 0) + dt);
}

const pct = (v: number) => `${((v / busy) * 100).toFixed(1)} %`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s of samples in ${file}\n`);
console.log('| self % | function |\n|---:|---|');
for (const [l, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${pct(v)} | \`${l}\` |`);
console.log('\n| self % | group |\n|---:|---|');
for (const [g, v] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`| ${pct(v)} | ${g} |`);
