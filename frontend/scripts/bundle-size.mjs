#!/usr/bin/env node
// Prints the portal's initial JavaScript (what index.html loads before any
// route chunk: the entry, its modulepreloads and their static imports),
// gzipped, against the DESIGN §11 budget. Exits 1 when over budget.
// Usage: node scripts/bundle-size.mjs [distDir]
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 250;
const dist = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const indexPath = join(dist, 'index.html');
if (!existsSync(indexPath)) {
  console.error(`bundle-size: ${indexPath} not found; run scripts/frontend.sh build first`);
  process.exit(2);
}
const html = readFileSync(indexPath, 'utf8');
const roots = [
  ...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g),
  ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
].map((m) => m[1].replace(/^\//, ''));

// Static imports only: `import ... from "./x.js"` and `import "./x.js"`,
// not dynamic `import("./x.js")` (route chunks load later).
const staticImport = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.{1,2}\/[^"']+)["']/g;
const seen = new Set();
const queue = [...roots];
while (queue.length) {
  const rel = queue.shift();
  if (seen.has(rel)) continue;
  seen.add(rel);
  const src = readFileSync(join(dist, rel), 'utf8');
  for (const m of src.matchAll(staticImport)) queue.push(posix.normalize(posix.join(posix.dirname(rel), m[1])));
}

let raw = 0;
let gz = 0;
const rows = [];
for (const rel of seen) {
  const buf = readFileSync(join(dist, rel));
  const z = gzipSync(buf, { level: 9 }).length;
  raw += buf.length;
  gz += z;
  rows.push([rel, buf.length, z]);
}
rows.sort((a, b) => b[2] - a[2]);
for (const [rel, r, z] of rows) console.log(`  ${rel.padEnd(44)} ${(r / 1024).toFixed(1).padStart(7)} KB  ${(z / 1024).toFixed(1).padStart(6)} KB gzipped`);
const kb = gz / 1024;
const verdict = kb <= BUDGET_KB ? 'within budget' : 'OVER BUDGET';
console.log(`portal initial JS: ${kb.toFixed(1)} KB gzipped (${(raw / 1024).toFixed(1)} KB raw, ${seen.size} files); budget ${BUDGET_KB} KB (DESIGN §11): ${verdict}`);
process.exit(kb <= BUDGET_KB ? 0 : 1);
