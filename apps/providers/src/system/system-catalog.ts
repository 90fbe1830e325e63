import type { ProviderTemplateView } from '@bastion/contracts';

export interface CatalogEntry {
  /** Stable across releases: the seed upserts by it. */
  id: string;
  name: string;
  description: string;
  type: string;
  tag: string;
  capabilities: string[];
  template: ProviderTemplateView;
  /** Input names and their defaults; `baseUrl` points at the vendor unless the tenant overrides it. */
  inputs: Record<string, string>;
  secretNames: string[];
  maxRequestsPerSecond: number;
  requestConcurrencyLimit: { requests: number; decayPerSecond: number };
}

const chatMessages = '{{ messages ?? [{ role: "user", content: prompt }] }}';

/**
 * The vendors the platform ships. Templates use the template language of libs/templates; each
 * answers `content` (the model's text) and `statusCode` in `outputs`.
 */
export const SYSTEM_PROVIDERS: CatalogEntry[] = [
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0001',
    name: 'anthropic',
    description: 'Anthropic Messages API',
    type: 'anthropic',
    tag: 'anthropic',
    capabilities: ['chat'],
    inputs: {
      baseUrl: 'https://api.anthropic.com',
      model: 'claude-sonnet-4-5',
      maxTokens: '1024',
      anthropicVersion: '2023-06-01',
    },
    secretNames: ['apiKey'],
    maxRequestsPerSecond: 50,
    requestConcurrencyLimit: { requests: 20, decayPerSecond: 5 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl }}/v1/messages',
      headers: {
        'x-api-key': '{{ apiKey }}',
        'anthropic-version': '{{ anthropicVersion }}',
        'content-type': 'application/json',
      },
      json: { model: '{{ model }}', max_tokens: '{{ +maxTokens }}', messages: chatMessages },
      timeout: 60,
      outputs: {
        content: '{{ response.json()?.content?.[0]?.text }}',
        statusCode: '{{ response.statusCode }}',
        error: '{{ response.statusCode >= 400 ? response.json()?.error?.message : undefined }}',
      },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0002',
    name: 'openai',
    description: 'OpenAI Chat Completions API',
    type: 'openai',
    tag: 'openai',
    capabilities: ['chat'],
    inputs: { baseUrl: 'https://api.openai.com', model: 'gpt-4o-mini', temperature: '0.7' },
    secretNames: ['apiKey'],
    maxRequestsPerSecond: 50,
    requestConcurrencyLimit: { requests: 20, decayPerSecond: 5 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl }}/v1/chat/completions',
      headers: { authorization: 'Bearer {{ apiKey }}', 'content-type': 'application/json' },
      json: { model: '{{ model }}', messages: chatMessages, temperature: '{{ +temperature }}' },
      timeout: 60,
      outputs: {
        content: '{{ response.json()?.choices?.[0]?.message?.content }}',
        statusCode: '{{ response.statusCode }}',
        error: '{{ response.statusCode >= 400 ? response.json()?.error?.message : undefined }}',
      },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0003',
    name: 'azure-openai',
    description: 'Azure OpenAI Chat Completions (a deployment of a resource)',
    type: 'azure-openai',
    tag: 'azure',
    capabilities: ['chat'],
    inputs: { baseUrl: '', resourceName: 'my-resource', deployment: 'gpt-4o-mini', apiVersion: '2024-10-21' },
    secretNames: ['apiKey'],
    maxRequestsPerSecond: 50,
    requestConcurrencyLimit: { requests: 20, decayPerSecond: 5 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl || "https://" + resourceName + ".openai.azure.com" }}/openai/deployments/{{ encodeURIComponent(deployment) }}/chat/completions',
      queryParams: { 'api-version': '{{ apiVersion }}' },
      headers: { 'api-key': '{{ apiKey }}', 'content-type': 'application/json' },
      json: { messages: chatMessages },
      timeout: 60,
      outputs: {
        content: '{{ response.json()?.choices?.[0]?.message?.content }}',
        statusCode: '{{ response.statusCode }}',
        error: '{{ response.statusCode >= 400 ? response.json()?.error?.message : undefined }}',
      },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0004',
    name: 'aws-bedrock',
    description: 'Amazon Bedrock Converse API, signed with AWS SigV4',
    type: 'aws-bedrock',
    tag: 'aws',
    capabilities: ['chat'],
    inputs: { baseUrl: '', region: 'us-east-1', model: 'anthropic.claude-3-5-haiku-20241022-v1:0', maxTokens: '1024' },
    secretNames: ['accessKeyId', 'secretAccessKey', 'sessionToken'],
    maxRequestsPerSecond: 20,
    requestConcurrencyLimit: { requests: 10, decayPerSecond: 2 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl || "https://bedrock-runtime." + region + ".amazonaws.com" }}/model/{{ encodeURIComponent(model) }}/converse',
      headers: { 'content-type': 'application/json' },
      json: {
        messages: [{ role: 'user', content: [{ text: '{{ prompt }}' }] }],
        inferenceConfig: { maxTokens: '{{ +maxTokens }}' },
      },
      timeout: 60,
      awsAuth: {
        accessKey: '{{ accessKeyId }}',
        secretKey: '{{ secretAccessKey }}',
        token: '{{ sessionToken }}',
        region: '{{ region }}',
        service: 'bedrock',
      },
      outputs: {
        content: '{{ response.json()?.output?.message?.content?.[0]?.text }}',
        statusCode: '{{ response.statusCode }}',
        error: '{{ response.statusCode >= 400 ? response.json()?.message : undefined }}',
      },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0005',
    name: 'oci-genai',
    description: 'Oracle Cloud Generative AI chat, signed with the OCI request signature',
    type: 'oci-genai',
    tag: 'oci',
    capabilities: ['chat'],
    inputs: {
      baseUrl: 'https://inference.generativeai.us-chicago-1.oci.oraclecloud.com',
      compartmentId: 'ocid1.compartment.oc1..example',
      model: 'cohere.command-r-plus',
    },
    secretNames: ['tenancyOcid', 'userOcid', 'keyFingerprint', 'privateKeyPem', 'passphrase'],
    maxRequestsPerSecond: 10,
    requestConcurrencyLimit: { requests: 5, decayPerSecond: 1 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl }}/20231130/actions/chat',
      headers: { 'content-type': 'application/json' },
      json: {
        compartmentId: '{{ compartmentId }}',
        servingMode: { servingType: 'ON_DEMAND', modelId: '{{ model }}' },
        chatRequest: {
          apiFormat: 'GENERIC',
          messages: [{ role: 'USER', content: [{ type: 'TEXT', text: '{{ prompt }}' }] }],
        },
      },
      timeout: 60,
      ociAuth: {
        keyId: '{{ tenancyOcid }}/{{ userOcid }}/{{ keyFingerprint }}',
        privateKeyPem: '{{ privateKeyPem }}',
        passphrase: '{{ passphrase }}',
      },
      outputs: {
        content: '{{ response.json()?.chatResponse?.choices?.[0]?.message?.content?.[0]?.text }}',
        statusCode: '{{ response.statusCode }}',
        error: '{{ response.statusCode >= 400 ? response.json()?.message : undefined }}',
      },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0006',
    name: 'generic-http',
    description: 'Any HTTP endpoint taking {"prompt": ...} and answering {"output": ...}; adapt the template',
    type: 'http',
    tag: 'http',
    capabilities: ['chat'],
    inputs: { baseUrl: 'https://example.com', path: '/generate' },
    secretNames: ['authorization'],
    maxRequestsPerSecond: 10,
    requestConcurrencyLimit: { requests: 10, decayPerSecond: 2 },
    template: {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl }}{{ path }}',
      headers: { authorization: '{{ authorization }}', 'content-type': 'application/json' },
      json: { prompt: '{{ prompt }}' },
      timeout: 30,
      outputs: { content: '{{ response.json()?.output }}', statusCode: '{{ response.statusCode }}' },
    },
  },
  {
    id: '6f9d5a52-1f0e-4d1c-9a55-0c4b8f3a0007',
    name: 'openai-compatible-oauth',
    description:
      'An OpenAI-compatible chat endpoint behind OAuth 2.0 client credentials: a token stage, then the chat call retried on 429 and 5xx',
    type: 'openai-compatible-oauth',
    tag: 'openai',
    capabilities: ['chat'],
    inputs: {
      baseUrl: 'https://llm.example.com',
      tokenUrl: 'https://login.example.com/oauth2/token',
      clientId: '',
      scope: '',
      model: 'default',
    },
    secretNames: ['clientSecret'],
    maxRequestsPerSecond: 20,
    requestConcurrencyLimit: { requests: 10, decayPerSecond: 2 },
    template: {
      type: 'workflow',
      timeout: 90,
      stages: [
        {
          type: 'request',
          method: 'POST',
          url: '{{ tokenUrl }}',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id={{ encodeURIComponent(clientId) }}&client_secret={{ encodeURIComponent(clientSecret) }}{{ scope ? "&scope=" + encodeURIComponent(scope) : "" }}',
          timeout: 15,
          outputs: { accessToken: '{{ response.json()?.access_token }}' },
        },
        {
          type: 'retry',
          attempts: 3,
          backoff: '{{ 2 * attempt }}',
          when: '{{ Array.contains([429, 500, 502, 503, 504], statusCode) }}',
          block: {
            type: 'request',
            method: 'POST',
            url: '{{ baseUrl }}/v1/chat/completions',
            headers: { authorization: 'Bearer {{ accessToken }}', 'content-type': 'application/json' },
            json: { model: '{{ model }}', messages: chatMessages },
            timeout: 60,
            outputs: {
              content: '{{ response.json()?.choices?.[0]?.message?.content }}',
              statusCode: '{{ response.statusCode }}',
              error:
                '{{ response.statusCode >= 400 ? response.json()?.error?.message ?? "HTTP " + response.statusCode : undefined }}',
            },
          },
        },
      ],
      outputs: { content: '{{ content }}', statusCode: '{{ statusCode }}', error: '{{ error }}' },
    },
  },
];
