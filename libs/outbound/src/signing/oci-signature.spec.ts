import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { signOciRequest } from './oci-signature';
import { SigningError } from './signing-error';

/**
 * The request examples of Oracle's "Request Signatures" page (docs.oracle.com, API > Concepts >
 * signingrequests): its GET with a query and its POST with a JSON body, signed at the date the page
 * uses. RSASSA-PKCS1-v1_5 is deterministic, so a signer is right when it builds the documented
 * signing string and signs it with RSA-SHA256; the tests check both with a key made per run.
 */
const KEY_ID =
  'ocid1.tenancy.oc1..aaaaaaaaba3pv6wkcr4jqae5f15p2b2m2yt2j6rx32uzr4h25vqstifsfdsq/' +
  'ocid1.user.oc1..aaaaaaaat5nvwcna5j6aqzjcaty5eqbb6qt2jvpkanghtgdaqedqw3rynjq/20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34';
const DATE = 'Thu, 05 Jan 2014 21:31:40 GMT';
const HOST = 'iaas.us-phoenix-1.oraclecloud.com';
const GET_TARGET =
  '/20160918/instances?availabilityDomain=Pjwf%3A%20PHX-AD-1' +
  '&compartmentId=ocid1.compartment.oc1..aaaaaaaam3we6vgnherjq5q2idnccdflvjsnog7mlr6rtdb25gilchfeyjxa' +
  '&displayName=TeamXInstances&volumeId=ocid1.volume.oc1.phx.abyhqljrgvttnlx73nmrwfaux7kcvzfs3s66izvxf2h4lgvyndsdsnoiwr5q';
const POST_BODY = [
  '{',
  '    "compartmentId": "ocid1.compartment.oc1..aaaaaaaam3we6vgnherjq5q2idnccdflvjsnog7mlr6rtdb25gilchfeyjxa",',
  '    "instanceId": "ocid1.instance.oc1.phx.abuw4ljrlsfiqw6vzzxb43vyypt4pkodawglp3wqxjqofakrwvou52gb6s5a",',
  '    "volumeId": "ocid1.volume.oc1.phx.abyhqljrgvttnlx73nmrwfaux7kcvzfs3s66izvxf2h4lgvyndsdsnoiwr5q"',
  '}',
].join('\n');

function parseAuthorization(header: string): Record<string, string> {
  expect(header.startsWith('Signature ')).toBe(true);
  return Object.fromEntries(
    [...header.slice('Signature '.length).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
}

function verifies(publicKey: KeyObject, signingString: string, authorization: string): boolean {
  return verify(
    'sha256',
    Buffer.from(signingString),
    publicKey,
    Buffer.from(parseAuthorization(authorization).signature, 'base64'),
  );
}

describe('signOciRequest', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it("signs a GET over date, (request-target) and host, as in Oracle's example", () => {
    const headers = signOciRequest(
      { method: 'GET', url: `https://${HOST}${GET_TARGET}`, headers: { date: DATE } },
      { keyId: KEY_ID, privateKeyPem: pem },
    );
    const fields = parseAuthorization(headers.authorization);
    expect(fields).toMatchObject({
      version: '1',
      keyId: KEY_ID,
      algorithm: 'rsa-sha256',
      headers: 'date (request-target) host',
    });
    expect(headers.authorization).toMatch(
      /^Signature version="1",keyId="[^"]+",algorithm="rsa-sha256",headers="[^"]+",signature="[A-Za-z0-9+/]+=*"$/,
    );
    const signingString = [`date: ${DATE}`, `(request-target): get ${GET_TARGET}`, `host: ${HOST}`].join('\n');
    expect(verifies(publicKey, signingString, headers.authorization)).toBe(true);
    // Only the authorization is added: the caller's date stays, and GET signs no body headers.
    expect(Object.keys(headers)).toEqual(['authorization']);
  });

  it('signs a POST over the body headers too, adding the ones the caller did not set', () => {
    const headers = signOciRequest(
      { method: 'POST', url: `https://${HOST}/20160918/volumeAttachments`, headers: { Date: DATE }, body: POST_BODY },
      { keyId: KEY_ID, privateKeyPem: pem },
    );
    expect(headers).toMatchObject({
      'content-length': '316',
      'content-type': 'application/json',
      'x-content-sha256': 'V9Z20UJTvkvpJ50flBzKE32+6m2zJjweHpDMX/U4Uy0=',
    });
    expect(parseAuthorization(headers.authorization).headers).toBe(
      'date (request-target) host content-length content-type x-content-sha256',
    );
    const signingString = [
      `date: ${DATE}`,
      '(request-target): post /20160918/volumeAttachments',
      `host: ${HOST}`,
      'content-length: 316',
      'content-type: application/json',
      'x-content-sha256: V9Z20UJTvkvpJ50flBzKE32+6m2zJjweHpDMX/U4Uy0=',
    ].join('\n');
    expect(verifies(publicKey, signingString, headers.authorization)).toBe(true);
  });

  it('signs the hash of an empty body for PUT and PATCH, and keeps a caller content type', () => {
    for (const method of ['PUT', 'PATCH']) {
      const headers = signOciRequest(
        { method, url: `https://${HOST}/x`, headers: { 'Content-Type': 'text/plain' } },
        { keyId: KEY_ID, privateKeyPem: pem },
        { now: new Date('2024-05-01T10:00:00Z') },
      );
      expect(headers['x-content-sha256']).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
      expect(headers['content-length']).toBe('0');
      expect(headers['content-type']).toBeUndefined();
      expect(headers.date).toBe('Wed, 01 May 2024 10:00:00 GMT');
      const signingString = [
        'date: Wed, 01 May 2024 10:00:00 GMT',
        `(request-target): ${method.toLowerCase()} /x`,
        `host: ${HOST}`,
        'content-length: 0',
        'content-type: text/plain',
        'x-content-sha256: 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
      ].join('\n');
      expect(verifies(publicKey, signingString, headers.authorization)).toBe(true);
    }
  });

  it('signs the port when the URL has one, as the Host header will carry it', () => {
    const headers = signOciRequest(
      { method: 'DELETE', url: 'https://oci.internal:8443/v1/x', headers: { date: DATE } },
      { keyId: KEY_ID, privateKeyPem: pem },
    );
    const signingString = [`date: ${DATE}`, '(request-target): delete /v1/x', 'host: oci.internal:8443'].join('\n');
    expect(verifies(publicKey, signingString, headers.authorization)).toBe(true);
  });

  it('uses a passphrase-protected key (and PKCS#1 keys) and explains a wrong passphrase', () => {
    const encrypted = privateKey
      .export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'open sesame' })
      .toString();
    const request = { method: 'GET', url: `https://${HOST}/`, headers: { date: DATE } };
    const headers = signOciRequest(request, { keyId: KEY_ID, privateKeyPem: encrypted, passphrase: 'open sesame' });
    expect(
      verifies(
        publicKey,
        [`date: ${DATE}`, '(request-target): get /', `host: ${HOST}`].join('\n'),
        headers.authorization,
      ),
    ).toBe(true);

    const wrong = () => signOciRequest(request, { keyId: KEY_ID, privateKeyPem: encrypted, passphrase: 'wrong' });
    expect(wrong).toThrow(SigningError);
    expect(wrong).toThrow('ociAuth.privateKeyPem could not be decrypted: check ociAuth.passphrase');
    expect(() => signOciRequest(request, { keyId: KEY_ID, privateKeyPem: encrypted })).toThrow(SigningError);
  });

  it('refuses keys it cannot sign with, without echoing them', () => {
    const request = { method: 'GET', url: `https://${HOST}/` };
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expect(() => signOciRequest(request, { keyId: KEY_ID, privateKeyPem: ec })).toThrow('must be an RSA key');
    const garbage = () => signOciRequest(request, { keyId: KEY_ID, privateKeyPem: 'not-a-key-secret-123' });
    expect(garbage).toThrow(SigningError);
    expect(garbage).toThrow(/^ociAuth.privateKeyPem is not a PEM private key \(PKCS#1 or PKCS#8\)$/);
    expect(() => signOciRequest(request, { keyId: '', privateKeyPem: pem })).toThrow('ociAuth.keyId is required');
  });
});
