/** `npm run bench -- <name>`: runs one benchmark (or all) and writes its result into docs/benchmarks.md. */
const benches: Record<string, () => Promise<{ main: () => Promise<void> }>> = {
  redeem: () => import('./redeem'),
  'api-cpu': () => import('./api-cpu'),
  upload: () => import('./upload'),
  lists: () => import('./lists'),
  export: () => import('./export'),
  resilience: () => import('./resilience'),
  pages: () => import('./pages'),
  mail: () => import('./mail'),
  marketplace: () => import('./marketplace'),
  'marketplace-inbound': () => import('./marketplace-inbound'),
  'index-costs': () => import('./index-costs'),
  'seed-check': () => import('./seed-check'),
};

async function run(): Promise<void> {
  const names = process.argv.slice(2);
  for (const name of names.length ? names : Object.keys(benches)) {
    if (!benches[name]) throw new Error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    console.log(`== ${name}`);
    await (await benches[name]()).main();
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
