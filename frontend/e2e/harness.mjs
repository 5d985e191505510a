// End-to-end harness: builds and starts `chakshu all` in sandbox mode on a free
// loopback port with a throwaway data dir, and drives Debian's chromium with
// playwright-core. Nothing leaves 127.0.0.1.
import { spawn, execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const screenshotDir = join(repoRoot, 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Builds ./cmd/chakshu (with the embedded portal build) into dir. */
function buildChakshu(dir) {
  const bin = join(dir, 'chakshu');
  execFileSync('go', ['build', '-p', '2', '-o', bin, './cmd/chakshu'], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOFLAGS: '-buildvcs=false' },
  });
  // The runner it serves to the sandbox's simulated Actions runner, in
  // runner/ beside it (where `make build` puts them), for this machine only.
  const platform = process.arch === 'arm64' ? 'linux/arm64' : 'linux/amd64';
  execFileSync('bash', [join(repoRoot, 'scripts', 'runners.sh'), join(dir, 'runner'), 'dev', platform], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return bin;
}

/**
 * Starts chakshu all (sandbox mode: no GitHub App configured) and waits for
 * /readyz. Returns {url, stop, logPath, log()}. env adds CHAKSHU_ settings;
 * sandboxFlags (such as --model-latency 1s) start `chakshu sandbox` on the
 * same port with them instead.
 */
export async function startChakshu({ env: extra = {}, sandboxFlags = [] } = {}) {
  // CHAKSHU_E2E_URL points the tests at a chakshu that is already running.
  if (process.env.CHAKSHU_E2E_URL) {
    const url = process.env.CHAKSHU_E2E_URL.replace(/\/$/, '');
    return { url, stop: async () => {}, logPath: '', log: () => '' };
  }
  const work = mkdtempSync(join(tmpdir(), 'chakshu-e2e-'));
  const bin = process.env.CHAKSHU_BIN ?? buildChakshu(work);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = join(work, 'chakshu.log');
  const logStream = createWriteStream(logPath);
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHAKSHU_')) delete env[k];
  Object.assign(env, {
    CHAKSHU_ADDR: `127.0.0.1:${port}`,
    CHAKSHU_PUBLIC_URL: url,
    CHAKSHU_DATA_DIR: join(work, 'data'),
    CHAKSHU_LOG_FORMAT: 'text',
    CHAKSHU_LOG_LEVEL: 'info',
    ...extra,
  });
  const args = sandboxFlags.length ? ['sandbox', '--port', String(port), ...sandboxFlags] : ['all'];
  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(logStream);
  child.stderr.pipe(logStream);
  let exited = null;
  child.on('exit', (code) => (exited = code));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`chakshu exited with ${exited} before it was ready; log: ${logPath}\n${readFileSync(logPath, 'utf8').slice(-3000)}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`chakshu not ready after 60 s; log: ${logPath}`);
    await sleep(200);
  }
  const stop = async () => {
    if (exited === null) {
      child.kill('SIGTERM');
      for (let i = 0; i < 100 && exited === null; i++) await sleep(100);
      if (exited === null) child.kill('SIGKILL');
    }
    logStream.end();
    if (!process.env.CHAKSHU_E2E_KEEP) rmSync(work, { recursive: true, force: true });
  };
  return { url, stop, logPath, log: () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '') };
}

/** What this chakshu serves, so tests that need a missing part skip with a reason. */
export async function probe(url) {
  const out = { portal: false, auth: false, sandboxLogin: false, graphql: false };
  try {
    const r = await fetch(`${url}/runs`);
    out.portal = r.ok && (await r.text()).includes('id="root"');
  } catch {
    // not served
  }
  try {
    const r = await fetch(`${url}/api/me`);
    if (r.ok) {
      const me = await r.json();
      out.auth = typeof me.csrfToken === 'string';
      out.sandboxLogin = me.login?.sandbox === true;
    }
  } catch {
    // not served
  }
  try {
    const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    out.graphql = r.status !== 404;
  } catch {
    // not served
  }
  return out;
}

/** Launches chromium with a fresh profile; the returned context collects console errors. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: scripts/frontend.sh installs Debian's chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'chakshu-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 860 },
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** Records console errors and uncaught exceptions of a page. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** Saves a full-page screenshot under screenshots/<name>.png. */
export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export const docsImgDir = join(repoRoot, 'docs', 'img');

/** Saves a screenshot of locator (or the viewport) as README's docs/img/<name>.png. */
export async function docsScreenshot(target, name) {
  mkdirSync(docsImgDir, { recursive: true });
  const path = join(docsImgDir, `${name}.png`);
  await target.screenshot({ path });
  return path;
}

/** Runs a GraphQL operation from inside the page, with its session and CSRF token. */
export async function gql(page, query, variables = {}) {
  return page.evaluate(
    async ({ query, variables }) => {
      const me = await (await fetch('/api/me')).json();
      const r = await fetch('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrfToken },
        body: JSON.stringify({ query, variables }),
      });
      return r.json();
    },
    { query, variables },
  );
}

/** Polls fn until it returns a truthy value or the time is up. */
export async function eventually(fn, { timeout = 30_000, interval = 500, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await sleep(interval);
  }
}
