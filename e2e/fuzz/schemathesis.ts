/**
 * Property-based API fuzzing with schemathesis (PyPI, pinned in e2e/fuzz/requirements.txt) from the
 * gateway's `/api/openapi.json`, against a running stack. Checks: no 5xx (`not_a_server_error`),
 * response bodies conform to their schema, status codes and content types are documented.
 *
 * When to use: e2e/specs/fuzz (bounded: fixed seed, a few examples per operation, in `make test`)
 * and `make fuzz` (the same spec with FUZZ_* raised for long runs). Not for load: workers stay few.
 *
 * schemathesis lives in a venv under `<repo>/.tools/fuzz-venv`, made on first use and remade when
 * requirements.txt changes (as e2e/specs/compat does for its clients). Reports (JUnit, NDJSON with
 * every request) go to `.data/fuzz/<label>/`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/up.js';

const run = promisify(execFile);
const REQUIREMENTS = join(REPO_ROOT, 'e2e', 'fuzz', 'requirements.txt');
const VENV = join(REPO_ROOT, '.tools', 'fuzz-venv');
const SCHEMATHESIS = join(VENV, 'bin', 'schemathesis');
const STAMP = join(VENV, '.requirements.sha256');

/** The checks every run applies. */
export const FUZZ_CHECKS = ['not_a_server_error', 'response_schema_conformance', 'status_code_conformance', 'content_type_conformance'];

/** Make (or reuse) the venv with schemathesis; null when ready, else why not. */
export async function ensureFuzzVenv(): Promise<string | null> {
  const want = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
  if (existsSync(SCHEMATHESIS) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === want) return null;
  try {
    rmSync(VENV, { recursive: true, force: true });
    mkdirSync(join(REPO_ROOT, '.tools'), { recursive: true });
    await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 });
    await run(join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', REQUIREMENTS], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(STAMP, `${want}\n`);
    return null;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    rmSync(VENV, { recursive: true, force: true });
    return `cannot install e2e/fuzz/requirements.txt into ${VENV}: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`;
  }
}

/** Path parameters pinned to real fixtures for the operations whose path matches a regex. */
export interface FixtureBinding {
  pathRegex: string;
  parameters: Record<string, string>;
}

/** Options of one fuzz run. */
export interface FuzzOptions {
  baseUrl: string;
  /** Name of the run (report folder). */
  label: string;
  token?: string;
  seed: number;
  maxExamples: number;
  /** Default `examples,fuzzing`; `make fuzz` adds `coverage,stateful`. */
  phases?: string;
  workers?: number;
  /** Time budget in seconds (schemathesis' --max-time), for long runs. */
  maxTimeSeconds?: number;
  fixtures?: FixtureBinding[];
  /** Operations left out (schemathesis --exclude-path-regex). */
  excludePathRegex?: string;
  /** Only these operations (schemathesis --include-path-regex), for a focused run. */
  includePathRegex?: string;
}

/** One failing operation. */
export interface FuzzFailure {
  operation: string;
  /** schemathesis' report: the check, what was received and a curl line that reproduces it. */
  report: string;
}

/** The outcome of a run. */
export interface FuzzResult {
  exitCode: number;
  operations: number;
  failures: FuzzFailure[];
  /** Last lines of the console output (the summary). */
  summary: string;
  reportDir: string;
}

function toml(s: string): string {
  return JSON.stringify(s);
}

/** Run schemathesis once against `baseUrl`; never throws for failures found (they are returned). */
export async function runFuzz(o: FuzzOptions): Promise<FuzzResult> {
  const reportDir = join(REPO_ROOT, '.data', 'fuzz', o.label);
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  const config = join(reportDir, 'schemathesis.toml');
  const lines: string[] = ['# written by e2e/fuzz/schemathesis.ts'];
  for (const f of o.fixtures ?? []) {
    lines.push('[[operations]]', `include-path-regex = ${toml(f.pathRegex)}`);
    lines.push(
      `parameters = { ${Object.entries(f.parameters)
        .map(([k, v]) => `${toml(k)} = ${toml(v)}`)
        .join(', ')} }`,
    );
  }
  writeFileSync(config, `${lines.join('\n')}\n`);
  const args = [
    '--config-file',
    config,
    'run',
    `${o.baseUrl}/api/openapi.json`,
    '--url',
    o.baseUrl,
    '--checks',
    FUZZ_CHECKS.join(','),
    '--max-examples',
    String(o.maxExamples),
    '--seed',
    String(o.seed),
    '--phases',
    o.phases ?? 'examples,fuzzing',
    '--workers',
    String(o.workers ?? 2),
    '--generation-database',
    'none',
    '--request-timeout',
    '30',
    '--no-color',
    '--report',
    'junit,ndjson',
    '--report-dir',
    reportDir,
  ];
  if (o.token) args.push('--header', `Authorization: Bearer ${o.token}`);
  if (o.maxTimeSeconds) args.push('--max-time', String(o.maxTimeSeconds));
  if (o.excludePathRegex) args.push('--exclude-path-regex', o.excludePathRegex);
  if (o.includePathRegex) args.push('--include-path-regex', o.includePathRegex);
  let stdout = '';
  let exitCode = 0;
  try {
    ({ stdout } = await run(SCHEMATHESIS, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SCHEMATHESIS_HOOKS: '' },
      timeout: ((o.maxTimeSeconds ?? 0) + 900) * 1000,
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    stdout = e.stdout ?? '';
    exitCode = typeof e.code === 'number' ? e.code : -1;
    if (!stdout.trim()) throw new Error(`schemathesis exited ${e.code} without output: ${e.stderr}`);
  }
  writeFileSync(join(reportDir, 'console.txt'), stdout);
  const junitFile = readdirSync(reportDir).find((f) => f.startsWith('junit') && f.endsWith('.xml'));
  const junit = junitFile ? readFileSync(join(reportDir, junitFile), 'utf8') : '';
  return {
    exitCode,
    operations: (junit.match(/<testcase /g) ?? []).length,
    failures: parseJunitFailures(junit),
    summary: stdout.trimEnd().split('\n').slice(-30).join('\n'),
    reportDir,
  };
}

const XML_ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&#39;': "'", '&amp;': '&' };

/** The failing test cases of a schemathesis JUnit report (failures and errors). */
export function parseJunitFailures(xml: string): FuzzFailure[] {
  const out: FuzzFailure[] = [];
  // A passing case is self-closing (`<testcase … />`); only an open one has a body.
  const re = /<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const body = m[2] ?? '';
    const reports = [...body.matchAll(/<(failure|error)[^>]*>([\s\S]*?)<\/\1>/g)].map((f) => f[2]);
    if (reports.length === 0) continue;
    const decode = (s: string) => s.replace(/&(lt|gt|quot|apos|#39|amp);/g, (e) => XML_ENTITIES[e] ?? e);
    out.push({ operation: decode(m[1]), report: decode(reports.join('\n')) });
  }
  return out;
}
