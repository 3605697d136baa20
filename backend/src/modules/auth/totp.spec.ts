import { generateSync } from 'otplib';
import { newTotpSecret, totpStep } from './totp';

describe('totpStep', () => {
  const secret = newTotpSecret();
  // Middle of a 30 s step, so ±1 step is unambiguous.
  const now = Math.floor(Date.now() / 30_000) * 30_000 + 15_000;
  const step = now / 30_000 - 0.5;
  const codeAt = (steps: number) => generateSync({ secret, epoch: now / 1000 + steps * 30 });

  it('gives the step of a code from the previous, current or next step', () => {
    expect(totpStep(codeAt(-1), secret, now)).toBe(step - 1);
    expect(totpStep(codeAt(0), secret, now)).toBe(step);
    expect(totpStep(codeAt(1), secret, now)).toBe(step + 1);
  });

  it('refuses codes two steps away, wrong codes and a broken secret', () => {
    for (const far of [-2, 2]) {
      const code = codeAt(far);
      // A far code may by chance equal a code inside the window; then it rightly matches that step.
      if ([-1, 0, 1].some((s) => codeAt(s) === code)) continue;
      expect(totpStep(code, secret, now)).toBeNull();
    }
    const wrong = String((Number(codeAt(0)) + 1) % 1_000_000).padStart(6, '0');
    if (![-1, 1].some((s) => codeAt(s) === wrong)) expect(totpStep(wrong, secret, now)).toBeNull();
    expect(totpStep(codeAt(0), '!!not base32!!', now)).toBeNull();
  });

  it('makes 32-character base32 secrets (the column limit)', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  });
});
