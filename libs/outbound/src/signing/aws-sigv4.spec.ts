import { signAwsRequest, type AwsAuth } from './aws-sigv4';
import { SigningError } from './signing-error';

/**
 * AWS's published SigV4 test suite (aws-sig-v4-test-suite, docs.aws.amazon.com "Signature
 * Version 4 test suite"): its credentials, region, service, host and date, and the exact
 * Authorization headers it expects. The suite's canonical requests carry no payload-hash header,
 * so these run with contentSha256Header off.
 */
const SUITE: AwsAuth = {
  accessKey: 'AKIDEXAMPLE',
  secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
  service: 'service',
};
const NOW = new Date('2015-08-30T12:36:00Z');
const HOST = 'https://example.amazonaws.com';
const CREDENTIAL = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request';
const STS_TOKEN =
  'AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/' +
  'qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==';

const suite = { now: NOW, contentSha256Header: false };

describe('signAwsRequest with the AWS SigV4 test suite', () => {
  it.each([
    ['get-vanilla', 'GET', '/', 'host;x-amz-date', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'],
    [
      'get-vanilla-query',
      'GET',
      '/',
      'host;x-amz-date',
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    ],
    [
      'get-vanilla-query-order-key-case',
      'GET',
      '/?Param2=value2&Param1=value1',
      'host;x-amz-date',
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    ],
    [
      'post-vanilla',
      'POST',
      '/',
      'host;x-amz-date',
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    ],
    [
      'post-vanilla-query',
      'POST',
      '/?Param1=value1',
      'host;x-amz-date',
      '28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11',
    ],
  ])('%s', async (_name, method, path, signedHeaders, signature) => {
    const headers = await signAwsRequest({ method, url: `${HOST}${path}` }, SUITE, suite);
    expect(headers).toEqual({
      authorization: `${CREDENTIAL}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
      'x-amz-date': '20150830T123600Z',
    });
  });

  it("post-x-www-form-urlencoded: signs the body and the caller's content type", async () => {
    const headers = await signAwsRequest(
      {
        method: 'POST',
        url: `${HOST}/`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'Param1=value1',
      },
      SUITE,
      suite,
    );
    expect(headers.authorization).toBe(
      `${CREDENTIAL}, SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a`,
    );
  });

  it('post-sts-header-before: a session token is sent and signed', async () => {
    const headers = await signAwsRequest({ method: 'POST', url: `${HOST}/` }, { ...SUITE, token: STS_TOKEN }, suite);
    expect(headers['x-amz-security-token']).toBe(STS_TOKEN);
    expect(headers.authorization).toBe(
      `${CREDENTIAL}, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead`,
    );
  });
});

describe('signAwsRequest', () => {
  it('sends and signs the payload hash by default, as the AWS SDKs do', async () => {
    const headers = await signAwsRequest(
      { method: 'POST', url: `${HOST}/model/invoke`, body: '{"a":1}' },
      { ...SUITE, token: '' },
      { now: NOW },
    );
    expect(headers['x-amz-content-sha256']).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
    expect(headers.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date,');
    // An empty token (templates hold strings) means no session token.
    expect(headers['x-amz-security-token']).toBeUndefined();
  });

  it('signs the host with its port, as the Host header will carry it', async () => {
    const plain = await signAwsRequest({ method: 'GET', url: `${HOST}/` }, SUITE, suite);
    const withPort = await signAwsRequest({ method: 'GET', url: 'https://example.amazonaws.com:8443/' }, SUITE, suite);
    expect(withPort.authorization).not.toBe(plain.authorization);
  });

  it('uses the signing time it is given and the current time otherwise', async () => {
    const headers = await signAwsRequest({ method: 'GET', url: `${HOST}/` }, SUITE);
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(headers['x-amz-date']).not.toBe('20150830T123600Z');
  });

  it('says which credential field is missing', async () => {
    const missing = signAwsRequest({ method: 'GET', url: `${HOST}/` }, { ...SUITE, region: '' });
    await expect(missing).rejects.toBeInstanceOf(SigningError);
    await expect(missing).rejects.toThrow('awsAuth.region is required');
  });
});
