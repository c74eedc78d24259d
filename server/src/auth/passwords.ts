import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, formatMessage, type Message } from '@svc/shared';

/** argon2id at OWASP's recommended minimum (m=19 MiB, t=2, p=1). 2 = Argon2id. */
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the same time as a real check, so an unknown user looks like a wrong password. */
export async function burnVerification(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(await dummyHash, password);
}

/** A random password for the seeded or reset administrator: 24 chars, ~143 bits. */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(48);
  let out = '';
  for (const b of bytes) {
    if (b < 224) out += alphabet[b % alphabet.length];
    if (out.length === 24) break;
  }
  return out.length === 24 ? out : generatePassword();
}

const common = new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));

function isSequentialOrRepeated(pw: string): boolean {
  const chars = [...pw.toLowerCase()];
  if (new Set(chars).size <= 3) return true;
  let ascending = 0;
  let descending = 0;
  for (let i = 1; i < chars.length; i++) {
    const d = chars[i]!.codePointAt(0)! - chars[i - 1]!.codePointAt(0)!;
    if (d === 1) ascending++;
    if (d === -1) descending++;
  }
  return ascending >= chars.length - 2 || descending >= chars.length - 2;
}

/**
 * NIST 800-63B style policy: length and a blocklist, no composition rules. Returns the message
 * (a shared catalog code) for a person when the password is refused, or undefined when it is
 * acceptable.
 */
export function passwordProblemMessage(
  password: string,
  context: string[] = [],
): Message | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    return { code: 'password_short', params: { min: PASSWORD_MIN_LENGTH } };
  }
  if (length > PASSWORD_MAX_LENGTH)
    return { code: 'too_long', params: { max: PASSWORD_MAX_LENGTH } };
  const lower = password.toLowerCase();
  const core = lower.replace(/^[\d\W_]+|[\d\W_]+$/g, '');
  if (common.has(lower) || (core.length >= 4 && common.has(core))) {
    return { code: 'password_common' };
  }
  if (isSequentialOrRepeated(password)) return { code: 'password_pattern' };
  for (const word of context) {
    if (word.length >= 3 && lower.includes(word.toLowerCase())) {
      return { code: 'password_personal' };
    }
  }
  return undefined;
}

/** {@link passwordProblemMessage} in the server's words (English). */
export function passwordProblem(password: string, context: string[] = []): string | undefined {
  const problem = passwordProblemMessage(password, context);
  return problem && formatMessage(problem.code, problem.params);
}
