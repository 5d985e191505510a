// The GraphQL explorer (GraphiQL at /graphql) in a real browser against
// `chakshu all` in sandbox mode: reached from the API tokens page, it runs a
// query with the signed-in session (CSRF handled) and, in a browser with no
// session, with an API token pasted as an Authorization header; all under the
// portal's CSP (a violation is a console error, which fails the test).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, gql, launchBrowser, probe, screenshot, startChakshu, watchErrors } from './harness.mjs';

let server;
let browser;
let features;

before(async () => {
  server = await startChakshu();
  features = await probe(server.url);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * Puts text into one of GraphiQL's CodeMirror editors (its wrapper element
 * holds the editor); the headers editor may sit in the collapsed tools pane.
 */
async function setEditor(page, selector, text) {
  await page.waitForSelector(`${selector} .CodeMirror`, { state: 'attached' });
  await page.evaluate(
    ({ selector, text }) => document.querySelector(`${selector} .CodeMirror`).CodeMirror.setValue(text),
    { selector, text },
  );
}

/** Runs the query in the editor and returns the response pane's text once it has an answer. */
async function run(page, query) {
  await setEditor(page, '.graphiql-query-editor', query);
  // GraphiQL derives the operation name from the editor's text after a short
  // debounce; a click before it sends the previous query's name, which the
  // server rightly refuses ("operation Me not found", 422).
  await page.waitForTimeout(400);
  await page.locator('.graphiql-execute-button').click();
  return eventually(
    async () => {
      const text = await page.locator('.graphiql-response').innerText();
      return /"(data|errors)"/.test(text) ? text : null;
    },
    { what: 'a response in the explorer', timeout: 20_000 },
  );
}

function realErrors(errors) {
  return errors.filter((e) => !/Failed to load resource.*(avatar|favicon)/i.test(e));
}

describe('GraphQL explorer', () => {
  it('runs a query with the session, from the tokens page link', async (t) => {
    if (!features.portal || !features.sandboxLogin || !features.graphql) {
      t.skip(`chakshu all does not serve the portal, sandbox login or GraphQL (${JSON.stringify(features)})`);
      return;
    }
    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${server.url}/tokens`);
    await page.getByRole('button', { name: 'Sign in as sandbox-admin' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByRole('link', { name: 'GraphQL explorer' }).click();
    await page.waitForURL(`${server.url}/graphql`);
    await page.waitForSelector('.graphiql-container');

    // A browser's GET /graphql is the explorer under the portal's CSP.
    const res = await page.request.get(`${server.url}/graphql`, { headers: { Accept: 'text/html' } });
    const csp = res.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);

    const out = await run(page, '{ viewer { login authMethod } }');
    assert.match(out, /"login": "sandbox-admin"/);
    assert.match(out, /"authMethod": "SESSION"/);
    // A mutation from the session passes the CSRF check.
    const m = await run(page, 'mutation { syncReviewers }');
    assert.match(m, /"syncReviewers": true/, `mutation answered ${m}`);
    await screenshot(page, 'explorer-session');
    assert.deepEqual(realErrors(errors), [], 'console errors (CSP violations among them)');

    // A token pasted as a header, in a browser without a session.
    const made = await gql(page, 'mutation { createAPIToken(input: {name: "explorer-e2e", scope: read}) { token } }');
    const secret = made.data?.createAPIToken?.token;
    assert.match(secret ?? '', /^chkt_/, JSON.stringify(made));
    await page.close();

    const ctx = await browser.context.browser()?.newContext() ?? null;
    const anon = ctx ? await ctx.newPage() : await browser.context.newPage();
    if (!ctx) await browser.context.clearCookies();
    const anonErrors = watchErrors(anon);
    await anon.goto(`${server.url}/graphql`);
    await anon.waitForSelector('.graphiql-container');
    const before = await run(anon, '{ viewer { login } }');
    assert.doesNotMatch(before, /sandbox-admin/, `no session, no token: ${before}`);
    await anon.getByRole('button', { name: /headers/i }).click();
    await setEditor(anon, '.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${secret}` }));
    const withToken = await run(anon, '{ viewer { login authMethod tokenScope } }');
    assert.match(withToken, /"authMethod": "TOKEN"/);
    assert.match(withToken, /"tokenScope": "read"/);
    await screenshot(anon, 'explorer-token');
    assert.deepEqual(realErrors(anonErrors), [], 'console errors with a token');
    await ctx?.close();
  });
});
