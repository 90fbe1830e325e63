import { parse } from 'yaml';
import { renderCloudInit } from './cloud-init';

describe('renderCloudInit', () => {
  it('is a #cloud-config document that writes the token to /etc/vpm/user_data', () => {
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const text = renderCloudInit(jwt);
    expect(text.split('\n')[0]).toBe('#cloud-config');
    const doc = parse(text);
    expect(doc.write_files).toEqual([{ path: '/etc/vpm/user_data', owner: 'root:root', permissions: '0600', content: `token: ${jwt}\n` }]);
    expect(parse(doc.write_files[0].content)).toEqual({ token: jwt });
  });
});
