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
    // The bundler's timing report is noise in `make build`.
    rolldownOptions: { checks: { bundlerTimings: false } },
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
