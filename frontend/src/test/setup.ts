import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { failOnContractViolations } from './fakeServer';

// The whole suite shares two cores with PostgreSQL and the API suites: give findBy/waitFor room under load.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no PointerEvent: without it Testing Library's pointer events lose clientX.
if (typeof window !== 'undefined' && !('PointerEvent' in window)) {
  class PointerEvent extends MouseEvent {
    readonly pointerId: number;
    readonly pointerType: string;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 0;
      this.pointerType = init.pointerType ?? 'mouse';
    }
  }
  Object.assign(window, { PointerEvent });
}

// jsdom has no layout, so scrolling means nothing there (jsdom only logs an error for it).
window.scrollTo = () => undefined;

// Every fake answer of the test kept the API contract (fakeServer.ts).
afterEach(() => failOnContractViolations());
