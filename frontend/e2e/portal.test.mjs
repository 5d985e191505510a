// The portal end to end, in a real browser against `chakshu all` in sandbox
// mode. The tests share one server and run in order (a review requested early
// gives the later tests runs to look at). Each saves a screenshot under
// screenshots/ (gitignored) for people to look at.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { eventually, gql, launchBrowser, probe, screenshot, startChakshu, watchErrors } from './harness.mjs';

let server;
let browser;
let features;
let page;
let errors;

/** Skips the test with a reason when chakshu lacks a part it needs. */
function need(t, ...parts) {
  const missing = parts.filter((p) => !features[p]);
  if (missing.length) {
    t.skip(`chakshu all does not serve ${missing.join(', ')} yet (${JSON.stringify(features)})`);
    return false;
  }
  return true;
}

function assertNoErrors(what) {
  // Failed image loads (avatars of a simulated GitHub) are not app errors.
  const real = errors.filter((e) => !/Failed to load resource.*(avatar|favicon)/i.test(e));
  assert.deepEqual(real, [], `${what}: console errors`);
  errors.length = 0;
}

before(async () => {
  server = await startChakshu();
  features = await probe(server.url);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  errors = watchErrors(page);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

describe('portal', () => {
  it('is served with a strict CSP, and deep links survive a reload', async (t) => {
    if (!need(t, 'portal')) return;
    const res = await fetch(`${server.url}/runs/does-not-matter?status=failed`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    assert.ok(asset, 'index.html loads a hashed script');
    const a = await fetch(server.url + asset);
    assert.match(a.headers.get('cache-control') ?? '', /immutable/);

    await page.goto(`${server.url}/runs?status=failed`);
    await page.waitForSelector('h1');
    await screenshot(page, '01-first-load');
    assertNoErrors('first load');
  });

  it('logs in with the sandbox login and shows the user', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/runs`);
    await page.getByRole('button', { name: 'Sign in as sandbox-admin' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/runs');
    const who = await page.locator('.who-name').innerText();
    assert.ok(who.trim().length > 0, 'the signed-in user is named');
    assert.match(who, /admin/, 'the sandbox user is an admin');
    await page.locator('h1', { hasText: 'Runs' }).waitFor();
    // Keyboard: the first Tab reaches the skip link, which moves focus to the page.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await screenshot(page, '02-signed-in-runs');
    assertNoErrors('login');
  });

  it('requests a review and watches it finish', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    const prURL = await findPullRequestURL(page);
    if (!prURL) {
      t.skip('the sandbox has no seeded pull request to review yet (set CHAKSHU_E2E_PR_URL)');
      return;
    }
    // A second tab shows the runs list, subscribed to runUpdated, before the
    // review is asked for: the new runs must appear and finish there without
    // a reload and without polling.
    const list = await watchRunsList(`${server.url}/runs`);
    await page.goto(`${server.url}/review`);
    await page.getByLabel('Pull request URL').fill(prURL);
    const boxes = page.getByRole('checkbox');
    await boxes.first().waitFor({ timeout: 15_000 }).catch(() => {});
    if ((await boxes.count()) > 0) await boxes.first().check();
    await page.getByLabel('Note for the reviewers').fill('End-to-end test: please review.');
    await page.getByRole('button', { name: 'Request review' }).click();
    await page.locator('#queued-h, .action-error').first().waitFor({ timeout: 20_000 });
    const refused = await page.locator('.action-error').allInnerTexts();
    assert.deepEqual(refused, [], `requestReview for ${prURL} was refused`);
    await screenshot(page, '03-review-queued');
    const runHref = await page.locator('.queued a').first().getAttribute('href');
    const watched = list.follow(runHref);
    watched.catch(() => {}); // awaited below; not an unhandled rejection meanwhile
    // The queued runs refresh until they finish (the sandbox runs the whole path).
    await eventually(
      async () => {
        const states = await page.locator('.queued .badge[class*="status-"]').allInnerTexts();
        return states.length > 0 && states.every((s) => ['succeeded', 'failed', 'cancelled'].includes(s.trim())) && states;
      },
      { timeout: 120_000, interval: 1000, what: 'the requested runs to finish' },
    );
    const states = await page.locator('.queued .badge[class*="status-"]').allInnerTexts();
    await screenshot(page, '04-review-finished');
    assert.ok(states.includes('succeeded'), `a requested run succeeded (got ${states.join(', ')})`);
    assertNoErrors('review');
    const w = await watched;
    const seen = w.statuses.join(' → ');
    assert.equal(w.statuses[0], '(not listed)', `the run was not listed when the list loaded (${seen})`);
    assert.ok(['succeeded', 'failed', 'cancelled'].includes(w.statuses.at(-1)), `the list shows the run's final status: ${seen}`);
    assert.ok(w.sameDocument, 'the list was not reloaded');
    assert.ok(w.liveSeen, 'the list was live (subscribed), not polling');
    assert.equal(w.polled, 0, 'no polling while the socket was up');
    const pushed = w.pushed.join(' → ');
    assert.ok(w.pushed.includes(w.statuses.at(-1)), `the socket pushed the final status (pushed ${pushed})`);
    assert.ok(new Set(w.pushed).size >= 2, `the socket pushed the run's status changes as they happened (pushed ${pushed})`);
    assert.deepEqual(w.errors, [], 'runs list console errors');
  });

  it('lists runs with filters kept in the URL', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/runs`);
    await page.locator('table.runs, .state-empty').first().waitFor({ timeout: 20_000 });
    const rows = await page.locator('table.runs tbody tr').count();
    if (rows === 0) {
      await screenshot(page, '05-runs-empty');
      t.skip('no runs in the sandbox yet');
      return;
    }
    await screenshot(page, '05-runs');
    await page.getByLabel('Status').selectOption('succeeded');
    await page.waitForURL(/status=succeeded/);
    await page.reload();
    assert.equal(await page.getByLabel('Status').inputValue(), 'succeeded', 'the filter survives a reload');
    await page.locator('table.runs, .state-empty').first().waitFor();
    const statuses = await page.locator('table.runs tbody .badge').allInnerTexts();
    assert.ok(statuses.every((s) => s.trim() === 'succeeded'), `only succeeded runs: ${statuses}`);
    await screenshot(page, '06-runs-filtered');
    // A phone-width look at the same page.
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, '07-runs-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
    assertNoErrors('runs');
  });

  it('opens a run: timeline, findings, links, and the deep link reloads', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/runs`);
    const first = page.locator('a.run-link').first();
    if (!(await first.count())) {
      await page.locator('.state-empty, table.runs').first().waitFor({ timeout: 20_000 });
      if (!(await first.count())) {
        t.skip('no runs in the sandbox yet');
        return;
      }
    }
    await first.click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByRole('heading', { name: /Findings/ }).waitFor();
    assert.ok(await page.getByRole('link', { name: 'Pull request' }).count());
    const steps = await page.locator('.timeline .step-name').allInnerTexts();
    assert.deepEqual(steps.slice(0, 4).map((s) => s.toLowerCase()), ['queued', 'dispatched', 'running', 'publishing']);
    await page.reload();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await screenshot(page, '08-run');
    assertNoErrors('run');
  });

  it('shows costs and reviewers', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/costs`);
    await page.locator('.totals, .state-empty, .state-error').first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.state-error').count(), 0, 'costs load');
    await screenshot(page, '09-costs');
    await page.goto(`${server.url}/reviewers`);
    await page.locator('.cards, .state-empty, .state-error').first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.state-error').count(), 0, 'reviewers load');
    await screenshot(page, '10-reviewers');
    assertNoErrors('costs and reviewers');
  });

  it('shows the Quality page with figures from the seeded history', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/runs`);
    await page.getByRole('link', { name: 'Quality' }).click();
    await page.locator('.totals, .state-empty, .state-error').first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.state-error, .state-empty').count(), 0, 'quality loads with figures');
    const rate = await page.locator('.totals div', { hasText: 'Acceptance rate' }).locator('dd').textContent();
    assert.match(rate, /^\d+% of \d+ decided$/, 'an acceptance rate over decided findings');
    await page.getByRole('img', { name: /Acceptance rate by (day|week)/ }).waitFor();
    // The seeded reviewers, told apart: security is accepted more often than style.
    const rows = await page.locator('table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector('th')?.textContent, tr.querySelectorAll('td')[6]?.textContent]),
    );
    const acc = Object.fromEntries(rows.map(([k, v]) => [k, parseInt(v, 10)]));
    assert.deepEqual(Object.keys(acc).sort(), ['correctness', 'security', 'style'], JSON.stringify(rows));
    assert.ok(acc.security > acc.style, `security ${acc.security}% > style ${acc.style}%`);
    await screenshot(page, '09b-quality');
    await page.getByRole('combobox', { name: 'By' }).selectOption('SEVERITY');
    await page.getByRole('heading', { name: 'By severity' }).waitFor();
    assertNoErrors('quality');
  });

  it('signs in a non-admin: admin controls hidden, admin mutations refused, other repositories unseen', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    // sandbox-dev is a simulated GitHub user who reads payments-api and
    // web-dashboard only; a browser of its own keeps the admin signed in here.
    const second = await launchBrowser();
    try {
      const p = await second.context.newPage();
      const perr = watchErrors(p);
      await p.goto(`${server.url}/status`);
      await p.getByRole('button', { name: 'Sign in as sandbox-dev' }).click();
      await p.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
      assert.equal(new URL(p.url()).pathname, '/status', 'back where the login started');
      const me = await p.evaluate(async () => (await fetch('/api/me')).json());
      assert.equal(me.user.login, 'sandbox-dev');
      assert.equal(me.user.isAdmin, false);
      await p.getByRole('heading', { name: 'Workers' }).waitFor({ timeout: 20_000 });
      assert.equal(await p.locator('.admin-badge').count(), 0, 'no admin badge');
      assert.equal(await p.getByRole('button', { name: /^Retry / }).count(), 0, 'no Retry for a non-admin');
      const failedRows = await p.locator('#failed-h + .table-wrap tbody tr').count();
      if (failedRows > 0) assert.equal(await p.getByText('visible to admins').count(), failedRows, 'errors are for admins');
      await screenshot(p, '13-status-non-admin');
      await p.goto(`${server.url}/reviewers`);
      await p.locator('.cards, .state-empty').first().waitFor({ timeout: 20_000 });
      assert.equal(await p.getByRole('button', { name: 'Sync reviewers now' }).count(), 0, 'no sync button for a non-admin');
      await p.goto(`${server.url}/connectors`);
      await p.locator('h1').first().waitFor({ timeout: 20_000 });
      assert.equal(await p.getByRole('button', { name: 'Save credential' }).count(), 0, 'no credential form for a non-admin');
      // The runs are those of the repositories GitHub lets sandbox-dev read.
      await p.goto(`${server.url}/runs`);
      await p.locator('table.runs, .state-empty').first().waitFor({ timeout: 20_000 });
      const repos = new Set((await p.locator('table.runs tbody a.run-link').allInnerTexts()).map((l) => l.replace(/#\d+$/, '').trim()));
      for (const r of repos) assert.match(r, /^acme\/(payments-api|web-dashboard)$/, `a run of ${r} is listed for sandbox-dev`);
      const all = await gql(p, '{ runs(first: 100) { edges { node { repository { fullName } } } } }');
      const seen = new Set(all.data.runs.edges.map((e) => e.node.repository.fullName));
      assert.ok(!seen.has('acme/data-pipeline'), `sandbox-dev must not see data-pipeline runs: ${[...seen]}`);
      await screenshot(p, '13b-runs-non-admin');
      // The API refuses the admin mutations whatever the UI shows.
      for (const m of [
        'mutation { syncReviewers }',
        'mutation { retryWebhookEvent(id: "1") { id } }',
        'mutation { deleteConnectorCredential(id: "1") }',
        'mutation { setConnectorCredential(input: {installationID: "1", connector: "http", name: "x", secret: "y"}) { id } }',
      ]) {
        const r = await gql(p, m);
        assert.ok(r.errors?.length, `${m} is refused`);
        assert.ok(
          r.errors.some((e) => e.extensions?.code === 'FORBIDDEN'),
          `${m}: refused as forbidden, got ${JSON.stringify(r.errors)}`,
        );
      }
      await p.close();
      assert.deepEqual(perr.filter((e) => !/Failed to load resource.*(avatar|favicon)/i.test(e)), []);
    } finally {
      await second.close();
    }
  });

  it('lets an admin retry a failed webhook', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/status`);
    await page.getByRole('heading', { name: 'Workers' }).waitFor({ timeout: 20_000 });
    if (!(await page.getByRole('button', { name: /^Retry / }).count())) {
      // Make one: a signed delivery the worker cannot handle fails after its attempts.
      await sendBrokenWebhook(server.url);
      const found = await eventually(
        async () => {
          const r = await gql(page, '{ webhookEvents(first: 1, where: {status: failed}) { totalCount } }');
          return r.data?.webhookEvents?.totalCount > 0;
        },
        { timeout: 30_000, interval: 1000, what: 'a failed webhook' },
      ).catch(() => false);
      if (!found) {
        t.skip('could not produce a failed webhook in the sandbox');
        return;
      }
      await page.reload();
    }
    const retry = page.getByRole('button', { name: /^Retry / }).first();
    await retry.waitFor({ timeout: 20_000 });
    await screenshot(page, '11-status-failed-webhook');
    await retry.click();
    await page.getByText(/Queued again: /).first().waitFor({ timeout: 15_000 });
    await screenshot(page, '12-status-retried');
    assertNoErrors('retry');
  });

  it('creates an API token shown once, and revokes it', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/tokens`);
    await page.getByLabel('Name', { exact: true }).fill('e2e-dashboard');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API token' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('API token').inputValue();
    assert.match(secret, /^chkt_/);
    await screenshot(page, '14-token-shown-once');
    await dialog.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone after closing');
    // The token works as a Bearer token.
    const r = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body: '{"query":"{ viewer { login } }"}' });
    assert.equal(r.status, 200);
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await page.getByText('revoked').first().waitFor({ timeout: 10_000 });
    await screenshot(page, '15-token-revoked');
    assertNoErrors('tokens');
  });

  it('sets, lists and deletes a connector credential whose value is never shown', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    const value = `e2e-secret-${randomUUID()}`;
    await page.goto(`${server.url}/runs`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { name: 'Connector credentials' }).waitFor();
    await page.getByLabel('Name', { exact: true }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Name', { exact: true }).fill('e2e-jira');
    await page.getByLabel('Value', { exact: true }).fill(value);
    await page.getByLabel('Hosts', { exact: true }).fill('jira.example.com'); // an http credential names its hosts
    await page.getByRole('button', { name: 'Save credential' }).click();
    await page.getByText('Saved e2e-jira (http).').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Delete e2e-jira (http)' }).waitFor();
    assert.equal(await page.getByLabel('Value', { exact: true }).inputValue(), '', 'the value left the form');
    assert.ok(!(await page.content()).includes(value), 'the value is nowhere on the page');
    const listed = await gql(page, '{ connectorCredentials { name connector updatedAt } }');
    assert.ok(!JSON.stringify(listed).includes(value), 'no query returns the value');
    assert.ok(listed.data.connectorCredentials.some((c) => c.name === 'e2e-jira' && c.connector === 'http'));
    await screenshot(page, '15b-connector-credential');
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete e2e-jira (http)' }).click();
    await page.getByRole('button', { name: 'Delete e2e-jira (http)' }).waitFor({ state: 'detached', timeout: 15_000 });
    assertNoErrors('connectors');
  });

  it('signs out', async (t) => {
    if (!need(t, 'portal', 'auth', 'sandboxLogin', 'graphql')) return;
    await page.goto(`${server.url}/runs`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in as sandbox-admin' }).waitFor({ timeout: 15_000 });
    await screenshot(page, '16-signed-out');
    assertNoErrors('sign out');
  });
});

/**
 * Opens the runs list in a tab of its own and records what the GraphQL socket
 * pushes from then on. follow(href) then records the statuses the list shows
 * for that run (starting with "(not listed)") until it finishes.
 */
async function watchRunsList(url) {
  const p = await browser.context.newPage();
  const errs = watchErrors(p);
  const pushed = new Map(); // run id → statuses pushed, in order
  let polled = 0;
  let live = false;
  p.on('websocket', (ws) => {
    if (!ws.url().endsWith('/graphql')) return;
    ws.on('framereceived', (f) => {
      try {
        const m = JSON.parse(String(f.payload));
        const run = m.type === 'next' ? m.payload?.data?.runUpdated : null;
        if (run) pushed.set(run.id, [...(pushed.get(run.id) ?? []), run.status]);
      } catch {
        // not JSON: ignore
      }
    });
  });
  await p.goto(url);
  await p.locator('table.runs, .state-empty').first().waitFor({ timeout: 20_000 });
  await eventually(async () => (await p.locator('.page-head .live').allInnerTexts()).includes('live'), { timeout: 15_000, interval: 200, what: 'the runs list to go live' });
  await p.evaluate(() => {
    window.__sameDocument = true;
  });
  // From now on every RunsPage request must be a re-read after a pushed event, not a poll.
  const refetchesAfterEvents = [];
  p.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/graphql') && (r.postData() ?? '').includes('"RunsPage"')) refetchesAfterEvents.push(Date.now());
  });
  return {
    async follow(href) {
      const id = decodeURIComponent(href.split('/').pop());
      const statuses = ['(not listed)'];
      try {
        await eventually(
          async () => {
            const row = p.locator('table.runs tbody tr', { has: p.locator(`a.run-link[href="${href}"]`) });
            const s = (await row.count()) ? (await row.locator('.badge[class*="status-"]').innerText()).trim() : '(not listed)';
            if (statuses.at(-1) !== s) statuses.push(s);
            if ((await p.locator('.page-head .live').allInnerTexts()).includes('live')) live = true;
            return ['succeeded', 'failed', 'cancelled'].includes(s);
          },
          { timeout: 120_000, interval: 100, what: `run ${id} to finish on the runs list` },
        );
        await screenshot(p, '04b-runs-list-live');
        // Each re-read follows a pushed event; with no socket the list would poll every 4 s.
        const pushes = [...pushed.values()].reduce((n, v) => n + v.length, 0);
        polled = Math.max(0, refetchesAfterEvents.length - pushes);
        const sameDocument = await p.evaluate(() => window.__sameDocument === true);
        return { statuses, pushed: pushed.get(id) ?? [], liveSeen: live, polled, sameDocument, errors: errs.filter((e) => !/Failed to load resource.*(avatar|favicon)/i.test(e)) };
      } finally {
        await p.close();
      }
    },
  };
}

/** A pull request of the sandbox to review: CHAKSHU_E2E_PR_URL, or one a run points at. */
async function findPullRequestURL(p) {
  if (process.env.CHAKSHU_E2E_PR_URL) return process.env.CHAKSHU_E2E_PR_URL;
  const r = await gql(p, '{ runs(first: 1) { edges { node { prURL } } } }');
  const fromRun = r.data?.runs?.edges?.[0]?.node?.prURL;
  if (fromRun) return fromRun;
  // The sandbox's GitHub web base (the simulator's pages) comes from the API;
  // sandbox PRs are numbered from 1 (the reviewers repository and
  // acme/billing-jobs, not enrolled, have none).
  const repos = await gql(p, '{ githubWebURL repositories(first: 10, where: {removed: false}) { edges { node { fullName } } } }');
  const name = repos.data?.repositories?.edges?.find((e) => !/\/(chakshu-reviewers|billing-jobs)$/.test(e.node.fullName))?.node.fullName;
  const web = repos.data?.githubWebURL;
  return name && web ? `${web}/${name}/pull/1` : null;
}

/** Posts a signed webhook whose payload cannot be handled (truncated JSON):
 * it is stored as failed, as a delivery cut short in transit would be. */
async function sendBrokenWebhook(url) {
  const body = '{"action":"created","installation":{"id":1},"comment":{"body":"@chakshu review"';
  const sig = 'sha256=' + createHmac('sha256', process.env.CHAKSHU_WEBHOOK_SECRET ?? 'sandbox-secret').update(body).digest('hex');
  await fetch(`${url}/webhooks/github`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'issue_comment', 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': sig },
    body,
  });
}
