#!/usr/bin/env node
// Oracle test: wgk's expression language and templates against @huggingface/jinja 0.5.10.
//
//   node tests/oracle/run.mjs --wgk build/wgk        compare every case with the wgk CLI
//   WGK_BIN=build/wgk node tests/oracle/run.mjs      the same
//   node tests/oracle/run.mjs --oracle-only          print what the oracle renders, run nothing
// Options: --filter SUBSTR (only case ids containing it), -j N (parallel wgk processes), -v (list passes too).
//
// Expression case {id, expr, scope?}: the oracle renders `{{ expr }}`; `wgk eval EXPR [--scope FILE]` must
// print exactly that plus one "\n". Template case cases/templates/NAME.jinja (+ NAME.scope.json): the oracle
// renders the file; `wgk template FILE [--scope FILE]` must print exactly that. Where the oracle throws,
// wgk must exit 1. A case with "wgkDiffers" is a documented deliberate difference: wgk must exit 1, or
// print "wgkExpect" (+ "\n" for expressions) when the case gives one.
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir, availableParallelism } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

let oracle;
try {
  oracle = await import('./oracle.mjs');
} catch (e) {
  console.error(`oracle: cannot load @huggingface/jinja (${e.message}).`);
  console.error('oracle: run scripts/bootstrap.sh (it runs `npm ci --ignore-scripts` in tests/oracle).');
  process.exit(1);
}

const argv = process.argv.slice(2);
let wgk = process.env.WGK_BIN || '';
let oracleOnly = false;
let filter = '';
let jobs = Math.max(2, Math.min(8, availableParallelism ? availableParallelism() : 4));
let verbose = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--wgk') wgk = argv[++i];
  else if (a === '--oracle-only') oracleOnly = true;
  else if (a === '--filter') filter = argv[++i];
  else if (a === '-j') jobs = Math.max(1, parseInt(argv[++i], 10) || 1);
  else if (a === '-v') verbose = true;
  else {
    console.error(`usage: run.mjs [--wgk PATH | --oracle-only] [--filter SUBSTR] [-j N] [-v]  (unknown: ${a})`);
    process.exit(2);
  }
}
if (!oracleOnly && !wgk) {
  console.error('oracle: give the wgk CLI with --wgk PATH or WGK_BIN, or use --oracle-only');
  process.exit(2);
}
if (!oracleOnly && !existsSync(wgk)) {
  console.error(`oracle: wgk CLI not found at ${wgk}`);
  process.exit(1);
}

// ---- load the cases ----
const table = JSON.parse(readFileSync(join(here, 'cases/expressions.json'), 'utf8'));
const scopes = table.scopes || {};
const cases = [];
for (const c of table.cases) {
  let scope = c.scope;
  let scopeKey = null;
  if (typeof scope === 'string') {
    if (!(scope in scopes)) throw new Error(`case ${c.id}: unknown scope ${scope}`);
    scopeKey = scope;
    scope = scopes[scope];
  } else if (scope) {
    scopeKey = `inline:${c.id}`;
  }
  cases.push({ kind: 'expr', id: `expr.${c.id}`, expr: c.expr, scope, scopeKey, meta: c });
}
const tdir = join(here, 'cases/templates');
const tfiles = readdirSync(tdir).sort();
for (const f of tfiles.filter((f) => f.endsWith('.jinja'))) {
  const name = f.slice(0, -'.jinja'.length);
  const text = readFileSync(join(tdir, f), 'utf8');
  const metaFile = join(tdir, `${name}.meta.json`);
  const meta = existsSync(metaFile) ? JSON.parse(readFileSync(metaFile, 'utf8')) : {};
  // NAME.scope.json, and/or NAME.<tag>.scope.json (one case each); none: one case with no scope.
  const runs = tfiles
    .filter((g) => g === `${name}.scope.json` || (g.startsWith(`${name}.`) && g.endsWith('.scope.json')))
    .map((g) => ({ tag: g.slice(name.length, -'.scope.json'.length), scopeFile: join(tdir, g) }));
  if (runs.length === 0) runs.push({ tag: '', scopeFile: null });
  for (const r of runs) {
    const scope = r.scopeFile ? JSON.parse(readFileSync(r.scopeFile, 'utf8')) : undefined;
    cases.push({ kind: 'template', id: `template.${name}${r.tag}`, file: join(tdir, f), text, scope, scopeFile: r.scopeFile, meta });
  }
}
const selected = cases.filter((c) => !filter || c.id.includes(filter));

// ---- oracle ----
for (const c of selected) {
  c.oracle = c.kind === 'expr' ? oracle.renderExpr(c.expr, c.scope) : oracle.renderTemplate(c.text, c.scope);
}

const show = (r) => (r.ok ? JSON.stringify(r.out) : `ERROR: ${r.error}`);
if (oracleOnly) {
  for (const c of selected) {
    const note = c.meta.wgkDiffers ? `   [wgkDiffers: ${c.meta.wgkDiffers}]` : '';
    console.log(`${c.id}\t${c.kind === 'expr' ? c.expr + '\t' : ''}${show(c.oracle)}${note}`);
  }
  console.log(`${selected.length} cases (oracle only)`);
  process.exit(0);
}

// ---- wgk ----
const tmp = mkdtempSync(join(tmpdir(), 'wgk-oracle-'));
const scopePaths = new Map();
function scopePath(c) {
  if (c.kind === 'template') return c.scopeFile;
  if (!c.scopeKey) return null;
  if (!scopePaths.has(c.scopeKey)) {
    const p = join(tmp, `scope${scopePaths.size}.json`);
    writeFileSync(p, JSON.stringify(c.scope));
    scopePaths.set(c.scopeKey, p);
  }
  return scopePaths.get(c.scopeKey);
}
function runWgk(c) {
  const args = c.kind === 'expr' ? ['eval', c.expr] : ['template', c.file];
  const sp = scopePath(c);
  if (sp) args.push('--scope', sp);
  return new Promise((res) => {
    execFile(resolve(wgk), args, { encoding: 'utf8', timeout: 20000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      let code = 0;
      let signal = null;
      if (err) {
        code = typeof err.code === 'number' ? err.code : -1;
        signal = err.signal || null;
        if (err.killed) signal = signal || 'timeout';
      }
      res({ code, signal, stdout, stderr });
    });
  });
}
function judge(c, w) {
  const nl = c.kind === 'expr' ? '\n' : '';
  const wantError = c.meta.wgkDiffers ? c.meta.wgkExpect === undefined : !c.oracle.ok;
  const want = c.meta.wgkDiffers && c.meta.wgkExpect !== undefined ? c.meta.wgkExpect : c.oracle.out;
  if (w.signal) return `wgk killed by ${w.signal}`;
  if (wantError) {
    if (w.code === 1) return null;
    return w.code === 0 ? 'wgk succeeded where an error is expected' : `wgk exited ${w.code}, expected 1`;
  }
  if (w.code !== 0) return `wgk exited ${w.code}`;
  if (w.stdout !== want + nl) return 'output differs';
  return null;
}
const wshow = (w) =>
  w.signal || w.code !== 0
    ? `exit ${w.signal || w.code}: ${JSON.stringify((w.stderr || '').trim().split('\n')[0] || '')}` +
      (w.stdout ? ` stdout ${JSON.stringify(w.stdout)}` : '')
    : JSON.stringify(w.stdout);

let next = 0;
let failed = 0;
const lines = [];
async function worker() {
  while (next < selected.length) {
    const c = selected[next++];
    const w = await runWgk(c);
    const why = judge(c, w);
    c.result = { why, w };
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, selected.length) }, worker));
for (const c of selected) {
  const { why, w } = c.result;
  if (why) {
    failed++;
    const what = c.kind === 'expr' ? `expr ${JSON.stringify(c.expr)}` : `file ${c.file}`;
    const diff = c.meta.wgkDiffers ? ` [wgkDiffers: ${c.meta.wgkDiffers}${c.meta.wgkExpect !== undefined ? `; expect ${JSON.stringify(c.meta.wgkExpect)}` : '; expect exit 1'}]` : '';
    lines.push(`FAIL ${c.id}: ${why}; ${what}; oracle ${show(c.oracle)}${diff}; wgk ${wshow(w)}`);
  } else if (verbose) {
    lines.push(`ok   ${c.id}`);
  }
}
rmSync(tmp, { recursive: true, force: true });
for (const l of lines) console.log(l);
console.log(`${selected.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
