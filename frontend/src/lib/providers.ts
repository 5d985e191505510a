// Names of the model providers the gateway sends runs to (README, Model providers).
const names: Record<string, string> = {
  anthropic: 'Anthropic',
  bedrock: 'Amazon Bedrock',
  vertex: 'Google Vertex AI',
  foundry: 'Microsoft Foundry',
  openai: 'OpenAI-compatible',
};

// providerName is a provider id for people; '' (not yet known) stays ''.
export function providerName(id: string): string {
  return names[id] ?? id;
}
