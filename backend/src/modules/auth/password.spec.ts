import { hashPassword, unmatchableHash, verifyPassword } from './password';

describe('password hashes', () => {
  it('verifies the password a hash was made of, and no other', async () => {
    const stored = await hashPassword('Str0ng!Passw0rd#1');
    expect(stored.hash).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('Str0ng!Passw0rd#1', stored)).toBe(true);
    expect(await verifyPassword('Str0ng!Passw0rd#2', stored)).toBe(false);
  });

  it("hashes at the test suites' cost once asked, and still verifies a hash of the production cost", async () => {
    const production = await hashPassword('Str0ng!Passw0rd#1');
    await jest.isolateModulesAsync(async () => {
      const cheap = await import('./password');
      cheap.usePasswordTestCost();
      const made = await cheap.hashPassword('Str0ng!Passw0rd#1');
      expect(made.hash).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(cheap.unmatchableHash().hash).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await cheap.verifyPassword('Str0ng!Passw0rd#1', made)).toBe(true);
      expect(await cheap.verifyPassword('Str0ng!Passw0rd#1', production)).toBe(true);
      expect(await cheap.verifyPassword('Str0ng!Passw0rd#2', production)).toBe(false);
    });
  });

  it('has a hash no password matches, of the same form and cost as a real one', async () => {
    const real = await hashPassword('Str0ng!Passw0rd#1');
    const unmatchable = unmatchableHash();
    const params = (hash: string) => hash.split('$').slice(0, 4);
    expect(params(unmatchable.hash)).toEqual(params(real.hash));
    expect(unmatchable.hash).toHaveLength(real.hash.length);
    expect(unmatchable.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(unmatchableHash().hash).not.toBe(unmatchable.hash);
    expect(await verifyPassword('Str0ng!Passw0rd#1', unmatchable)).toBe(false);
    expect(await verifyPassword('', unmatchable)).toBe(false);
  });
});
