import { friendlyId } from './friendly-id';

describe('friendlyId', () => {
  it('is a slug of the name and six random characters', () => {
    expect(friendlyId('Support Bot (EU)', Buffer.from([0, 1, 2, 3, 4, 35]))).toBe('support-bot-eu-abcde9');
    expect(friendlyId('...', Buffer.from([0, 0, 0, 0, 0, 0]))).toBe('project-aaaaaa');
    expect(friendlyId('x'.repeat(100))).toMatch(/^x{40}-[a-z0-9]{6}$/);
  });
});
