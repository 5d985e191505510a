// Routes and the signed-in frame. Pages are split into their own chunks.
import { lazy, Suspense, useMemo } from 'react';
import { Provider, useQuery } from 'urql';
import { Redirect, Route, Switch } from 'wouter';
import { graphql } from './gql';
import type { Api, Me } from './lib/api';
import { DEFAULT_GITHUB_WEB_URL, SessionContext, type Session } from './lib/session';
import { Layout } from './components/Layout';
import { ErrorState, Loading } from './components/States';
import { LoginPage } from './pages/LoginPage';

const RunsPage = lazy(() => import('./pages/RunsPage'));
const RunPage = lazy(() => import('./pages/RunPage'));
const ReviewersPage = lazy(() => import('./pages/ReviewersPage'));
const CostsPage = lazy(() => import('./pages/CostsPage'));
const QualityPage = lazy(() => import('./pages/QualityPage'));
const StatusPage = lazy(() => import('./pages/StatusPage'));
const ReviewPage = lazy(() => import('./pages/ReviewPage'));
const LearningsPage = lazy(() => import('./pages/LearningsPage'));
const TokensPage = lazy(() => import('./pages/TokensPage'));
const InstallationPage = lazy(() => import('./pages/InstallationPage'));
const ConnectorsPage = lazy(() => import('./pages/ConnectorsPage'));
const AuditPage = lazy(() => import('./pages/AuditPage'));

export const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      login
      name
      avatarURL
      isAdmin
      canWrite
    }
    githubWebURL
  }
`);

export function Routes() {
  return (
    <Suspense fallback={<Loading />}>
      <Switch>
        <Route path="/">
          <Redirect to="/runs" replace />
        </Route>
        <Route path="/login">
          <Redirect to="/runs" replace />
        </Route>
        <Route path="/runs" component={RunsPage} />
        <Route path="/runs/:id">{(p) => <RunPage id={p.id} />}</Route>
        <Route path="/reviewers" component={ReviewersPage} />
        <Route path="/installations/:id">{(p) => <InstallationPage id={p.id} />}</Route>
        <Route path="/costs" component={CostsPage} />
        <Route path="/quality" component={QualityPage} />
        <Route path="/status" component={StatusPage} />
        <Route path="/review" component={ReviewPage} />
        <Route path="/learnings" component={LearningsPage} />
        <Route path="/tokens" component={TokensPage} />
        <Route path="/connectors" component={ConnectorsPage} />
        <Route path="/audit" component={AuditPage} />
        <Route>
          <div className="page">
            <h1>Page not found</h1>
            <p>
              There is nothing at this address. <a href="/runs">Go to the runs</a>.
            </p>
          </div>
        </Route>
      </Switch>
    </Suspense>
  );
}

function SignedIn({ api, me }: { api: Api; me: Me }) {
  const [res, reexecute] = useQuery({ query: ViewerQuery, requestPolicy: 'network-only' });
  const viewer = res.data?.viewer;
  const githubWebURL = res.data?.githubWebURL || DEFAULT_GITHUB_WEB_URL;
  const session = useMemo<Session | null>(() => (viewer ? { viewer, me, api, githubWebURL } : null), [viewer, me, api, githubWebURL]);
  if (res.fetching && !res.data) return <Loading label="Signing in…" />;
  if (res.error && !res.data) {
    const unauth = res.error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
    if (!unauth) return <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} title="Chakshu is not answering" />;
  }
  if (!session) return <LoginPage me={me} api={api} />;
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        <Routes />
      </Layout>
    </SessionContext.Provider>
  );
}

export function App({ api, me }: { api: Api; me: Me }) {
  return (
    <Provider value={api.client}>
      <SignedIn api={api} me={me} />
    </Provider>
  );
}
