import { randomBytes } from 'node:crypto';

/** A short readable id for a project: its name as a slug, then random letters (`support-bot-k3x9qa`). */
export function friendlyId(name: string, random: Buffer = randomBytes(6)): string {
  const slug =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'project';
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const suffix = [...random].map((b) => alphabet[b % alphabet.length]).join('');
  return `${slug}-${suffix}`;
}
