// jsdom plus the WHATWG fetch classes of Node (jsdom has none), so RTK Query's fetchBaseQuery runs unchanged.
// Relative URLs resolve against the page's location, as in a browser; AbortController is Node's so the
// signals RTK Query creates are accepted by Node's Request.
const { TestEnvironment } = require('jest-environment-jsdom');

class JsdomWithFetchEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    const g = this.global;
    const base = () => g.location.href;
    class BrowserRequest extends Request {
      constructor(input, init) {
        super(typeof input === 'string' ? new URL(input, base()) : input, init);
      }
    }
    Object.assign(g, {
      Request: BrowserRequest,
      Response,
      Headers,
      FormData,
      AbortController,
      AbortSignal,
      TextEncoder,
      TextDecoder,
      structuredClone,
      fetch: (input, init) => fetch(typeof input === 'string' ? new URL(input, base()) : input, init),
    });
  }
}

module.exports = JsdomWithFetchEnvironment;
