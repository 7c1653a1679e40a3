#!/usr/bin/env node
// A stand-in for the wgk CLI that answers with the oracle itself, to check run.mjs:
//   node tests/oracle/run.mjs --wgk tests/oracle/tools/oracle-as-wgk.mjs
// must fail exactly the wgkDiffers cases. Contract: `eval EXPR [--scope F]`, `template FILE [--scope F]`.
import { readFileSync } from 'node:fs';
import { renderExpr, renderTemplate } from '../oracle.mjs';
const [cmd, arg, flag, scopeFile] = process.argv.slice(2);
const scope = flag === '--scope' ? JSON.parse(readFileSync(scopeFile, 'utf8')) : undefined;
const r = cmd === 'eval' ? renderExpr(arg, scope) : renderTemplate(readFileSync(arg, 'utf8'), scope);
if (!r.ok) {
  process.stderr.write(`error: ${r.error}\n`);
  process.exit(1);
}
process.stdout.write(cmd === 'eval' ? r.out + '\n' : r.out);
