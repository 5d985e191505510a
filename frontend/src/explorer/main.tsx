// The GraphQL explorer at /graphql (a browser's GET; server/portal/explorer.go):
// GraphiQL over the same endpoint, a Vite entry of its own so none of it is in
// the portal's initial JavaScript. Signed in, requests carry the session
// cookie and the CSRF token exactly as the portal's do (createApi's fetch:
// the token from /api/me, refreshed once on a CSRF 403). A token pasted in the
// Headers tab as {"Authorization": "Bearer chkt_…"} is sent as is; the server
// then uses it instead of the session.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import 'graphiql/graphiql.css';
import './explorer.css';
import { createApi } from '../lib/api';
import { explorerDefaultQuery, explorerWsUrl } from './config';

const api = createApi({ socket: null });
const fetcher = createGraphiQLFetcher({
  url: '/graphql',
  fetch: api.fetch,
  // Subscriptions (runUpdated) over graphql-ws; the upgrade carries the session cookie.
  subscriptionUrl: explorerWsUrl(window.location),
});

api
  .loadMe()
  .catch(() => null)
  .then(() => {
    createRoot(document.getElementById('explorer')!).render(
      <StrictMode>
        <GraphiQL fetcher={fetcher} defaultQuery={explorerDefaultQuery} shouldPersistHeaders={false} />
      </StrictMode>,
    );
  });
