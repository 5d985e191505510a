// The sandbox as a newcomer meets it, in a real browser against `chakshu all`
// in sandbox mode: the portal's first page shows the three things to try;
// a comment on a simulated PR leads to a rendered review with a suggestion;
// the Actions run shows the runner's log live; a reply resolves a thread,
// which the PR page collapses and labels; the reviewer change the sandbox
// opens is backtested, its comparison shown on the reviewers-repository PR
// and its shadow runs under Runs → Backtest runs. README's sandbox screenshots
// (docs/img/sandbox-*.png) come from here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { docsScreenshot, eventually, gql, launchBrowser, screenshot, startChakshu, watchErrors } from './harness.mjs';

let server;
let browser;
let page;
let errors;

before(async () => {
  // A slower scripted model makes a run last a few seconds, long enough to
  // watch its log grow.
  server = await startChakshu({ sandboxFlags: ['--model-latency', '1s'] });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  errors = watchErrors(page);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

function assertNoErrors(what) {
  const real = errors.filter((e) => !/Failed to load resource.*(avatar|favicon)/i.test(e));
  assert.deepEqual(real, [], `${what}: console errors`);
  errors.length = 0;
}

async function tourLinks() {
  const items = page.locator('.sandbox-tour li');
  await items.first().waitFor();
  const out = {};
  for (const li of await items.all()) {
    out[await li.getAttribute('data-try')] = { href: await li.locator('a').getAttribute('href'), title: await li.locator('a').innerText() };
  }
  return out;
}

describe('sandbox', () => {
  let prURL;
  let runsURL;

  it('shows the things to try on the first page', async () => {
    await page.goto(`${server.url}/runs`);
    await page.getByRole('button', { name: 'Sign in as sandbox-admin' }).click();
    await page.getByRole('heading', { name: 'Try the sandbox' }).waitFor();
    const links = await tourLinks();
    // The fourth, the backtested reviewer change, appears once the sandbox opened it.
    assert.deepEqual(Object.keys(links).slice(0, 3), ['comment', 'review', 'reply']);
    assert.equal(links.comment.title, 'Comment on a pull request');
    assert.ok(links.comment.href.startsWith(`${server.url}/sim/acme/`), `the PR is on the portal's address: ${links.comment.href}`);
    assert.match(links.review.href, /^\/review\?pr=/);
    prURL = links.comment.href.replace(/#comment$/, '');
    runsURL = page.url();
    await docsScreenshot(page.locator('.sandbox-tour'), 'sandbox-tour');
    // "Review a PR" arrives with the PR filled in.
    await page.getByRole('link', { name: 'Ask from “Review a PR”' }).click();
    await page.locator('h1', { hasText: 'Review a pull request' }).waitFor();
    const filled = await page.getByLabel('Pull request URL').inputValue();
    assert.ok(filled.startsWith(`${server.url}/sim/acme/`), `the PR URL is filled in: ${filled}`);
    assertNoErrors('tour');
  });

  it('a PR comment leads to a rendered review with a suggestion, and the Actions log is shown live', async () => {
    await eventually(async () => {
      const r = await gql(page, '{ reviewers(first: 5) { totalCount } }');
      return r.data?.reviewers?.totalCount > 0;
    }, { timeout: 60_000, what: 'the reviewers to sync' });
    await page.goto(`${prURL}#comment`);
    await page.locator('select[name="as"]').selectOption('dana');
    await page.getByLabel('Comment', { exact: true }).fill('@chakshu review security');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.waitForURL(/\/pull\/\d+\?as=dana/);

    // The Actions run, as soon as Chakshu dispatched it.
    const actionsURL = await eventually(async () => {
      const r = await gql(page, '{ runs(first: 10, where: { statusIn: [dispatched, running] }) { edges { node { status links { actionsRun } } } } }');
      if (r.errors) throw new Error(JSON.stringify(r.errors));
      return (r.data?.runs?.edges ?? []).map((e) => e.node.links.actionsRun).find(Boolean);
    }, { timeout: 60_000, interval: 100, what: 'a dispatched Actions run' });
    assert.ok(actionsURL.startsWith(`${server.url}/sim/`), `the Actions run is on the portal's address: ${actionsURL}`);
    const log = await browser.context.newPage();
    const logErrors = watchErrors(log);
    await log.goto(actionsURL);
    const initial = await log.locator('#log').getAttribute('data-status');
    assert.notEqual(initial, 'completed', 'the run is still going when its page opens');
    await log.evaluate(() => {
      window.__notReloaded = true;
    });
    // Tool calls appear while the run goes on…
    await eventually(async () => (await log.locator('#log').innerText()).includes('→ ['), { timeout: 60_000, interval: 200, what: 'a tool call in the log' });
    assert.notEqual(await log.locator('#log').getAttribute('data-status'), 'completed', 'tool calls showed while the run went on');
    await docsScreenshot(log, 'sandbox-actions-log');
    // …and the log is all there once it completes, without a reload.
    await eventually(async () => (await log.locator('#log').getAttribute('data-status')) === 'completed', { timeout: 90_000, what: 'the run to complete' });
    const text = await log.locator('#log').innerText();
    assert.match(text, /Result delivered to Chakshu\./);
    assert.doesNotMatch(text, /::add-mask::/);
    assert.equal(await log.evaluate(() => window.__notReloaded), true, 'the log grew in place');
    assert.match(await log.locator('#run-status').innerText(), /completed · success/);
    await screenshot(log, 'sandbox-actions-log-done');
    assert.deepEqual(logErrors, [], 'Actions page: console errors');
    await log.close();

    // The review, rendered: a suggestion as a "Suggested change" diff.
    await eventually(async () => {
      await page.goto(prURL);
      return (await page.locator('.review .suggestion').count()) > 0;
    }, { timeout: 60_000, interval: 1000, what: 'a review with a suggestion' });
    const body = await page.locator('main').innerText();
    assert.doesNotMatch(body, /chakshu:finding|```suggestion/);
    const suggestion = page.locator('.review .suggestion').first();
    assert.equal(await suggestion.locator('.suggestion-head').innerText(), 'Suggested change');
    assert.ok((await suggestion.locator('tr.del').count()) > 0, 'the commented lines are shown removed');
    assert.ok((await suggestion.locator('tr.add').count()) > 0, 'the suggestion is shown added');
    const thread = page.locator('.review details.thread', { has: page.locator('.suggestion') }).first();
    await thread.scrollIntoViewIfNeeded();
    await docsScreenshot(thread, 'sandbox-suggestion');
    await screenshot(page, 'sandbox-pr');
    assertNoErrors('rendered review');
  });

  it('a reply resolves one of Chakshu threads, shown collapsed and labelled', async () => {
    await page.goto(runsURL);
    const links = await tourLinks();
    assert.match(links.reply.href, /\/files#thread-\d+$/, 'the tour links one of Chakshu threads now');
    const id = links.reply.href.split('#thread-')[1];
    await page.goto(links.reply.href);
    const thread = page.locator(`#thread-${id}`);
    await thread.locator('textarea[name="body"]').fill('This is a false positive, the amount is checked by the caller.');
    await thread.getByRole('button', { name: /^Reply as / }).click();
    await page.waitForURL(/\/files\?as=/);
    await eventually(async () => {
      await page.goto(prURL);
      return (await page.locator(`#thread-${id} .tag.resolved`).count()) > 0;
    }, { timeout: 90_000, interval: 1000, what: 'the thread to be resolved' });
    const resolved = page.locator(`#thread-${id}`);
    assert.equal(await resolved.getAttribute('open'), null, 'a resolved thread is collapsed');
    assert.equal(await resolved.locator('.tag.resolved').innerText(), 'Resolved');
    await resolved.scrollIntoViewIfNeeded();
    await docsScreenshot(resolved, 'sandbox-resolved-thread');
    // Opened, it shows the reply and Chakshu's answer.
    await resolved.locator('summary').click();
    await eventually(async () => (await resolved.locator('.thread-comment').count()) >= 3, { what: 'the reply and the answer' });
    await screenshot(page, 'sandbox-resolved');
    assertNoErrors('resolved thread');
  });
  it('a reviewer change is backtested: the comparison on its PR, the shadow runs under Backtest runs', async () => {
    const backtestURL = await eventually(async () => {
      await page.goto(runsURL);
      return (await tourLinks()).backtest?.href;
    }, { timeout: 60_000, interval: 1000, what: 'the tour to link the backtested reviewer change' });
    assert.match(backtestURL, /\/sim\/acme\/chakshu-reviewers\/pull\/\d+$/);
    const comment = page.locator('div.box[id^="issuecomment-"]', { hasText: 'Chakshu backtest · style' });
    const check = page.locator('div.box.check', { hasText: 'Chakshu backtest · style' });
    // The comment is posted, then the check completed.
    await eventually(async () => {
      await page.goto(backtestURL);
      return (await comment.count()) > 0 && /completed/.test(await check.locator('.box-head').innerText());
    }, { timeout: 180_000, interval: 2000, what: 'the backtest comment and its completed check' });
    assert.equal(await comment.count(), 1, 'one comparison comment');
    const body = comment.locator('.markdown-body');
    assert.equal(await body.locator('h3').innerText(), 'Chakshu backtest · style');
    assert.doesNotMatch(await body.innerText(), /chakshu:backtest/, 'the marker stays hidden');
    const table = body.locator('table').first();
    assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['Severity', 'Kept', 'Added', 'Dropped']);
    const rows = await table.locator('tbody tr').allInnerTexts();
    assert.deepEqual(rows.map((r) => r.split('\t')[0].trim()), ['blocker', 'major', 'minor', 'nit', 'all']);
    const all = (await table.locator('tbody tr').last().locator('td').allInnerTexts()).map((x) => Number(x.trim()));
    assert.ok(all[2] > 0, `the correctness rules add findings: ${rows.at(-1)}`);
    assert.match(await check.locator('.box-head').innerText(), /completed · success/);
    await comment.scrollIntoViewIfNeeded();
    await docsScreenshot(comment, 'sandbox-backtest');

    // The portal lists the shadow runs apart, each with its side.
    await page.goto(runsURL);
    await page.getByRole('link', { name: 'Backtest runs' }).click();
    await page.waitForURL(/view=backtests/);
    const shadow = page.locator('table.runs tbody tr');
    await eventually(async () => (await shadow.count()) >= 6, { timeout: 30_000, what: 'the six shadow runs' });
    const text = (await shadow.allInnerTexts()).join('\n');
    assert.match(text, /version in force/);
    assert.match(text, /changed version/);
    assert.match(text, /acme\/payments-api#\d+/);
    await screenshot(page, 'sandbox-backtest-runs');
    assertNoErrors('backtest');
  });

  it('an installation page lists its repositories and enrols the missing one through GitHub’s new-file page', async () => {
    await page.goto(`${server.url}/reviewers`);
    await page.locator('article.card a[title="Its repositories and their workflow"]').first().click();
    await page.getByRole('heading', { name: 'Repositories of acme' }).waitFor();
    const row = (name) => page.locator('table.table tbody tr', { has: page.getByRole('rowheader', { name }) });
    const state = async (name) => (await row(name).locator('.badge').innerText()).trim();
    await row('acme/billing-jobs').waitFor();
    assert.equal(await state('acme/payments-api'), 'current');
    assert.equal(await state('acme/billing-jobs'), 'missing');
    // The sandbox's installation has no Workflows: write, so the way in is GitHub's own page.
    assert.equal(await row('acme/billing-jobs').getByRole('button', { name: 'Open onboarding pull request' }).count(), 0);
    const add = row('acme/billing-jobs').getByRole('link', { name: 'Add the workflow on GitHub' });
    const href = await add.getAttribute('href');
    assert.ok(href.startsWith(`${server.url}/sim/acme/billing-jobs/new/main?`), `GitHub's new-file page: ${href}`);
    await docsScreenshot(page.locator('main'), 'portal-enrol');
    const installationURL = page.url();
    assertNoErrors('installation page');

    // On the new-file page the name and the template are filled in; the person commits.
    await page.goto(href);
    assert.equal(await page.getByLabel('Name your file').inputValue(), '.github/workflows/chakshu.yml');
    assert.match(await page.getByLabel('Content').inputValue(), /workflow_dispatch:/);
    await page.locator('select[name="as"]').selectOption('sandbox-admin');
    await page.getByRole('button', { name: 'Commit changes' }).click();
    await page.waitForURL(/\/sim\/acme\/billing-jobs\/commit\/[0-9a-f]{40}$/);
    assert.match(await page.locator('h1').innerText(), /Create \.github\/workflows\/chakshu\.yml/);

    // Back in the portal the repository is enrolled.
    await page.goto(installationURL);
    await row('acme/billing-jobs').waitFor();
    assert.equal(await state('acme/billing-jobs'), 'current');
    assert.equal(await row('acme/billing-jobs').getByRole('link', { name: 'Add the workflow on GitHub' }).count(), 0);
    assertNoErrors('enrolled');
  });
});
