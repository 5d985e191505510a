import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createApi, type Me } from './lib/api';
import './styles.css';

const api = createApi();
const root = createRoot(document.getElementById('root')!);

api
  .loadMe()
  .catch((): Me => ({ csrfToken: '', sandbox: false, sandboxUsers: [], github: true, authenticated: false }))
  .then((me) => {
    root.render(
      <StrictMode>
        <App api={api} me={me} />
      </StrictMode>,
    );
  });
