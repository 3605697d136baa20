// `npm run deps:rules`: the import rules of docs/architecture.md ("Modules, their tables and the arrows between
// them"), checked by dependency-cruiser over backend/src and frontend/src. The folder rules are written here; which
// module may import which is read from the doc's table (scripts/module-rules.js), so a new arrow between modules
// fails until that table allows it.
'use strict';
const { moduleRules } = require('./scripts/module-rules');

const MODULES = '^backend/src/modules/';
const ENTITY = '\\.entity\\.ts$';
/** The customers' pages; every other folder of frontend/src/features is the admin console's. */
const PUBLIC_FEATURES = ['redeem', 'success', 'resend', 'licence-centre', 'legal', 'errors', 'site'];

/** Two rules per module: its code imports only the modules of its row; its entities may also name other entities. */
function moduleArrows(modules) {
  return Object.entries(modules).flatMap(([name, allowed]) => {
    const own = `${MODULES}(${[name, ...allowed].join('|')})/`;
    const comment = `modules/${name} may import ${allowed.length ? allowed.join(', ') : 'no other module'} (its row)`;
    return [
      {
        name: `module-table:${name}`,
        comment,
        severity: 'error',
        from: { path: `${MODULES}${name}/`, pathNot: ENTITY },
        to: { path: MODULES, pathNot: own },
      },
      {
        name: `module-table:${name}`,
        comment: `${comment}; an entity may name another module's entity in a relation`,
        severity: 'error',
        from: { path: `${MODULES}${name}/.*${ENTITY}` },
        to: { path: MODULES, pathNot: [own, ENTITY] },
      },
    ];
  });
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no file imports itself through others (a cycle of Nest modules is one of files)',
      severity: 'error',
      from: { path: '^(backend|frontend)/src/' },
      to: { circular: true },
    },
    {
      name: 'common-imports-no-feature',
      comment: 'common/ imports only common/ and packages: no module, events/, database/ or config/',
      severity: 'error',
      from: { path: '^backend/src/common/' },
      to: { path: '^backend/src/', pathNot: '^backend/src/common/' },
    },
    {
      name: 'config-imports-no-feature',
      comment: 'config/ imports only config/ and packages',
      severity: 'error',
      from: { path: '^backend/src/config/' },
      to: { path: '^backend/src/', pathNot: '^backend/src/config/' },
    },
    {
      name: 'events-import-no-module',
      comment: 'events/ (the event map and its publisher) imports only database/ (after-commit callbacks)',
      severity: 'error',
      from: { path: '^backend/src/events/' },
      to: { path: '^backend/src/', pathNot: '^backend/src/(events|database)/' },
    },
    {
      name: 'database-imports-no-module',
      comment: 'database/ imports common/ and config/; only entities.ts, the list TypeORM reads, names modules',
      severity: 'error',
      from: { path: '^backend/src/database/', pathNot: '^backend/src/database/entities\\.ts$' },
      to: { path: '^backend/src/', pathNot: '^backend/src/(database|common|config)/' },
    },
    {
      name: 'entity-list-imports-entities',
      comment: 'database/entities.ts imports the modules\u2019 entities and nothing else of them',
      severity: 'error',
      from: { path: '^backend/src/database/entities\\.ts$' },
      to: { path: MODULES, pathNot: ENTITY },
    },
    {
      name: 'modules-import-no-boot-file',
      comment: 'the boot files (backend/src/*.ts) import the modules, never the other way',
      severity: 'error',
      from: { path: '^backend/src/[^/]+/' },
      to: { path: '^backend/src/[^/]+\\.ts$' },
    },
    {
      name: 'modules-import-no-entity-list',
      comment: 'database/entities.ts is for the data sources; a module imports the entities it needs',
      severity: 'error',
      from: { path: MODULES },
      to: { path: '^backend/src/database/entities\\.ts$' },
    },
    ...moduleArrows(moduleRules().modules),
    {
      name: 'public-pages-import-no-admin',
      comment: `frontend/src/features/{${PUBLIC_FEATURES.join(',')}} (the customers' pages) import no admin feature`,
      severity: 'error',
      from: { path: `^frontend/src/features/(${PUBLIC_FEATURES.join('|')})/` },
      to: { path: '^frontend/src/features/', pathNot: `^frontend/src/features/(${PUBLIC_FEATURES.join('|')})/` },
    },
    {
      name: 'shared-frontend-imports-no-feature',
      comment: 'frontend/src/{api,components,theme,utils} import no feature (their tests may)',
      severity: 'error',
      from: { path: '^frontend/src/(api|components|theme|utils)/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^frontend/src/features/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` is an arrow too: a type names what it depends on.
    tsPreCompilationDeps: true,
    exclude: { path: '(^|/)(dist|build)/' },
  },
};
