import { describe, expect, it } from 'vitest';
import { providerName } from './providers';

describe('providerName', () => {
  it('names each provider and keeps an unknown one', () => {
    expect(providerName('bedrock')).toBe('Amazon Bedrock');
    expect(providerName('vertex')).toBe('Google Vertex AI');
    expect(providerName('openai')).toBe('OpenAI-compatible');
    expect(providerName('')).toBe('');
    expect(providerName('local')).toBe('local');
  });
});
