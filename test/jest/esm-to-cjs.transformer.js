// Jest runs this project's tests as CommonJS. From Node.js 24.9 Jest loads ES-module-only packages
// (NestJS 12, otplib 13 and their dependencies) natively (`require(esm)` under --experimental-vm-modules);
// on older Node.js (20.19+, 22.x) this transformer turns those packages into CommonJS instead.
// jest.config.js applies it only there, and only to the packages listed in ESM_ONLY_PACKAGES.
'use strict';
const { createHash } = require('node:crypto');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  allowJs: true,
  esModuleInterop: true,
  sourceMap: false,
};

/** import.meta has no CommonJS meaning: give it the module's own file through __filename. */
function replaceImportMeta(source) {
  return source
    .replace(/^\s*const require = createRequire\(import\.meta\.url\);?\s*$/m, '') // CommonJS has require already
    .replace(/\bimport\.meta\.resolve\(/g, 'require.resolve(')
    .replace(/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href")
    .replace(/\bimport\.meta\.dirname\b/g, '__dirname')
    .replace(/\bimport\.meta\.filename\b/g, '__filename');
}

module.exports = {
  process(source, filename) {
    const { outputText } = ts.transpileModule(replaceImportMeta(source), { fileName: filename, compilerOptions });
    return { code: outputText };
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update('esm-to-cjs-1').update(ts.version).update(filename).update(source).digest('hex');
  },
};
