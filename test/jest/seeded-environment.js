// Node.js for the API, unit and browser suites, plus the seed of their random test data (test/helpers/seed.ts):
// TEST_SEED when set, else Jest's own seed (`--seed N`, which also orders the tests under `--randomize`). Every
// failing test gets a note with the seed and the command that replays it (docs/testing.md).
const { relative } = require('path');
const { TestEnvironment } = require('jest-environment-node');

class SeededEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const { globalConfig, projectConfig } = config;
    const given = process.env.TEST_SEED;
    const seed = given ? Number(given) : globalConfig.seed;
    if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer, not "${given}"`);
    this.global.__TEST_SEED__ = seed;
    const file = relative(projectConfig.rootDir, context.testPath);
    const randomize = globalConfig.randomize ? ' --randomize' : '';
    const replay = given
      ? `TEST_SEED=${seed} npm test -- ${file}${randomize && `${randomize} --seed ${globalConfig.seed}`}`
      : `npm test -- ${file}${randomize} --seed ${seed}`;
    this.seedNote = `Random test data seed: ${seed}. Replay: ${replay}`;
  }

  handleTestEvent(event) {
    if (event.name !== 'test_done' || event.test.errors.length === 0) return;
    const note = new Error(this.seedNote);
    note.stack = this.seedNote;
    event.test.errors.push(note);
  }
}

module.exports = SeededEnvironment;
