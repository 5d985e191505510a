/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { writeFileSync } from 'node:fs';

// The API the dev server proxies to: a running `chakshu all`.
const api = process.env.CHAKSHU_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [
    react(),
    {
      // GraphiQL's stylesheet embeds its fonts (Roboto, Fira Code) as data:
      // URLs, which the portal's CSP (font-src 'self') refuses: drop those
      // @font-face rules; its font stacks fall back to the system's fonts.
      name: 'graphiql-fonts-under-csp',
      enforce: 'pre',
      transform(code, id) {
        if (!/node_modules\/graphiql\/dist\/style\.css/.test(id)) return null;
        return { code: code.replace(/@font-face\s*\{[^}]*data:font[^}]*\}/g, ''), map: null };
      },
    },
    {
      // dist/.keep is committed so `go build` (which embeds dist/) works on a
      // clean checkout; emptying dist/ must not delete it.
      name: 'keep-dist-placeholder',
      apply: 'build',
      closeBundle() {
        writeFileSync(new URL('./dist/.keep', import.meta.url), '');
      },
    },
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // The one chunk over Vite's 500 kB default is GraphiQL (~790 kB, its
    // editor and React bindings), loaded only by the explorer page
    // (explorer.html, its own entry), never by the portal: splitting it
    // would only turn one request into several on that page. The portal's
    // initial JavaScript has its own budget, checked by
    // scripts/bundle-size.mjs (`make test`, `make bench`).
    chunkSizeWarningLimit: 1000,
    // The bundler's timing report is noise in `make build`.
    rolldownOptions: {
      // moduleLevelDirective: react-compiler-runtime (a dependency of
      // GraphiQL) starts with "use no memo", a hint for the React Compiler
      // that a bundle has no use for; the portal's own code has no
      // module-level directives.
      checks: { bundlerTimings: false, moduleLevelDirective: false },
      // The GraphQL explorer (GraphiQL) is its own page and entry, so the
      // portal's initial JavaScript (index.html) does not grow with it.
      input: { index: 'index.html', explorer: 'explorer.html' },
    },
  },
  server: {
    proxy: {
      '/graphql': { target: api, ws: true },
      '/auth': api,
      '/api': api,
    },
  },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
});
