import type { CodegenConfig } from '@graphql-codegen/cli';

// Types for every GraphQL document in src/, generated from the server's SDL.
// Run through `scripts/frontend.sh generate` (part of `make generate`).
const config: CodegenConfig = {
  // PORTAL_SCHEMA overrides the SDL location (e.g. a work-in-progress copy).
  schema: process.env.PORTAL_SCHEMA ?? '../schema/*.graphqls',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**/*', '!src/**/*.test.{ts,tsx}', '!src/test/**/*'],
  ignoreNoDocuments: true,
  generates: {
    './src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: { unmaskFunctionName: 'getFragmentData' } },
      config: {
        scalars: {
          Time: 'string',
          Cursor: 'string',
          Map: 'Record<string, unknown>',
          Int64: 'number',
          Upload: 'File',
        },
        enumsAsTypes: true,
        useTypeImports: true,
        skipTypename: false,
        avoidOptionals: false,
      },
    },
  },
};

export default config;
