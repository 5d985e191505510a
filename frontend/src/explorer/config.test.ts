import { describe, expect, it } from 'vitest';
import { explorerDefaultQuery, explorerWsUrl } from './config';

describe('explorer config', () => {
  it('uses ws on http and wss on https, same host', () => {
    expect(explorerWsUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/graphql');
    expect(explorerWsUrl({ protocol: 'https:', host: 'chakshu.example.com' })).toBe('wss://chakshu.example.com/graphql');
  });
  it('starts with a query that says who is asking', () => {
    expect(explorerDefaultQuery).toMatch(/viewer\s*{\s*login\s*authMethod/);
  });
});
